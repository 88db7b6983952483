import { createMailroom } from '@mailroom/adapters/h3';

// The suite serves this app once per receiver profile, several at a time, from the production build
// in the test's own process: each server registers its profile's setup by the port it listens on.
// Each profile's endpoints are made once.
const SETUPS = Symbol.for('mailroom.conformance.setups');
const made = new WeakMap();

/** The handler for the event's path under its server's profile, or undefined when the app serves nothing there. */
export function conformanceHandler(event) {
  const url = getRequestURL(event);
  const setup = globalThis[SETUPS]?.get(url.port);
  if (!setup) throw new Error(`no conformance setup for port ${url.port}`);
  let routes = made.get(setup);
  if (!routes) {
    const mailroom = createMailroom(setup.options);
    routes = new Map([
      [setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler)],
      [setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions)],
      [setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
    ]);
    made.set(setup, routes);
  }
  return routes.get(url.pathname);
}
