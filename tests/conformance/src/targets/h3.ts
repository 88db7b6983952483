import { createMailroom, type MailroomEventHandler } from '@mailroom/adapters/h3';
import { defineEventHandler, H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import { createApp, createRouter, defineEventHandler as defineEventHandlerV1, readBody as readBodyV1, toNodeListener } from 'h3v1';
import type { ConformanceTarget, TargetSetup } from '../target';
import { serveOnPort0 } from './node-server';

/** The suite's endpoints as `[path, handler]`, each handler an h3 event handler. */
function endpoints(setup: TargetSetup): Array<[string, MailroomEventHandler]> {
  const mailroom = createMailroom(setup.options);
  return [
    [setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler)],
    [setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions)],
    [setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
  ];
}

/**
 * h3 2 (Nitro 3's server): an `H3` app, the endpoints mounted with `all` so a wrong method reaches
 * the pipeline, served by h3's own Node handler on port 0. `event.req` is a Web Request.
 */
export const h3Target: ConformanceTarget = {
  name: 'h3 2 (event.req, a Web Request)',
  start: async (setup) => {
    const app = new H3();
    for (const [path, handler] of endpoints(setup)) app.all(path, defineEventHandler(handler));
    return serveOnPort0(toNodeHandler(app));
  },
};

/**
 * h3 1 (Nuxt 3, Nitro 2): `event.node.req`. With `readsBodyFirst`, a middleware reads the body with
 * `readBody` before the route, as an app's logging or auth middleware may: h3 keeps the bytes, and
 * Mailroom checks those.
 */
function h3v1Target(name: string, readsBodyFirst: boolean): ConformanceTarget {
  return {
    name,
    start: async (setup) => {
      const app = createApp();
      if (readsBodyFirst) {
        app.use(
          defineEventHandlerV1(async (event) => {
            if (event.method === 'POST') await readBodyV1(event).catch(() => undefined);
          }),
        );
      }
      const router = createRouter();
      for (const [path, handler] of endpoints(setup)) router.use(path, defineEventHandlerV1(handler));
      app.use(router);
      return serveOnPort0(toNodeListener(app));
    },
  };
}

export const h3v1PlainTarget = h3v1Target('h3 1 (event.node.req)', false);
export const h3v1BodyReadFirstTarget = h3v1Target('h3 1, a middleware that read the body first (readBody)', true);
