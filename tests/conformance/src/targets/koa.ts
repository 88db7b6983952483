import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { createMailroom } from '@mailroom/adapters/koa';
import Koa from 'koa';
import type { ConformanceTarget } from '../target';
import { serveOnPort0 } from './node-server';

/**
 * Koa 3 with @koa/router, the three endpoints mounted with `router.all` (a wrong method still reaches
 * the pipeline), over a real socket on port 0. In front of them: the documented
 * `exceptDeliveries(bodyParser())`, or a plain `bodyParser()`, whose kept raw text Mailroom checks.
 */
function koaTarget(name: string, parser: 'except-deliveries' | 'plain'): ConformanceTarget {
  return {
    name,
    // @koa/bodyparser refuses malformed JSON itself (400) before any route runs.
    ...(parser === 'plain' ? { quirks: { frameworkParsesJson: true } } : {}),
    start: async (setup) => {
      const mailroom = createMailroom(setup.options);
      const app = new Koa();
      app.silent = true;
      app.use(parser === 'plain' ? bodyParser() : mailroom.exceptDeliveries(bodyParser()));
      const router = new Router();
      router.all(setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler));
      router.all(setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions));
      router.all(setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions));
      app.use(router.routes());
      return serveOnPort0(app.callback());
    },
  };
}

export const koaTargetExceptDeliveries = koaTarget('koa 3 + exceptDeliveries(bodyParser())', 'except-deliveries');
export const koaTargetPlainParser = koaTarget('koa 3 + plain bodyParser() (its raw text checked)', 'plain');
