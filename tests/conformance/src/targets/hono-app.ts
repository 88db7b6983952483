import { createMailroom } from '@mailroom/adapters/hono';
import { Hono } from 'hono';
import type { TargetSetup } from '../target';

/**
 * The suite's three endpoints as a Hono app, mounted with `app.all` so a wrong method still reaches
 * the pipeline (405 with `Allow`). Nothing here is Node's: the same app runs on Node and, bundled, on
 * Bun, Deno and workerd (src/runtimes).
 */
export function honoApp(setup: TargetSetup): Hono {
  const mailroom = createMailroom(setup.options);
  const app = new Hono();
  app.all(setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler));
  app.all(setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions));
  app.all(setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions));
  return app;
}
