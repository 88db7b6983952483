import { createMailroom } from '@mailroom/adapters/fastify';
import Fastify from 'fastify';
import type { ConformanceTarget } from '../target';
import { serveOnPort0 } from './node-server';

/**
 * Fastify 5 with Mailroom's plugin registered first, the three endpoints mounted with `app.all` (a
 * wrong method still reaches the pipeline), and a JSON route of the app's own beside them: Fastify's
 * parser stays on for everything but Mailroom's routes. Served over a real socket on port 0.
 */
export const fastifyTarget: ConformanceTarget = {
  name: 'fastify 5 + mailroom.plugin',
  start: async (setup) => {
    const mailroom = createMailroom(setup.options);
    const app = Fastify();
    await app.register(mailroom.plugin);
    app.all(setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler));
    app.all(setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions));
    app.all(setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions));
    await app.ready();
    const running = await serveOnPort0((req, res) => app.routing(req, res));
    return {
      ...running,
      close: async () => {
        await running.close();
        return await app.close();
      },
    };
  },
};
