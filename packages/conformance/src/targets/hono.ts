import { getRequestListener } from '@hono/node-server';
import { createMailroom } from '@mailroom/hono';
import { Hono } from 'hono';
import type { ConformanceTarget, TargetSetup } from '../target';
import { serveOnPort0 } from './node-server';

/**
 * The suite's three endpoints as a Hono app, mounted with `app.all` so a wrong method still reaches
 * the pipeline (405 with `Allow`). Shared by every runtime's target: Node here, Bun, Deno and workerd
 * through the runtime bridge.
 */
export function honoApp(setup: TargetSetup): Hono {
  const mailroom = createMailroom(setup.options);
  const app = new Hono();
  app.all(setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler));
  app.all(setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions));
  app.all(setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions));
  return app;
}

/** Hono on Node through `@hono/node-server`, over a real socket on port 0. */
export const honoNodeTarget: ConformanceTarget = {
  name: 'hono on node (@hono/node-server)',
  start: async (setup) => serveOnPort0(getRequestListener(honoApp(setup).fetch)),
};
