import { createReceiver } from '@mailroom/core';

// The Web-entry apps (Astro, React Router, TanStack Start) as the suite serves them: once per
// receiver profile, several at a time, on their production build and under their dev server, in the
// test's own process. Each server registers its profile's setup by the port it listens on; each
// profile's endpoints are made once. (`.server`: React Router keeps such a module out of the browser.)
const SETUPS = Symbol.for('mailroom.conformance.setups');
const made = new WeakMap();

/**
 * The endpoint for the request's path under its server's profile, or undefined when the app serves
 * nothing there. The port is read from Host: Astro's request URL names the host only when it is in
 * `security.allowedDomains`, and `localhost` otherwise.
 */
export function endpointFor(request) {
  const port = new URL(`http://${request.headers.get('host')}`).port;
  const setup = globalThis[SETUPS]?.get(port);
  if (!setup) throw new Error(`no conformance setup for port ${port}`);
  let routes = made.get(setup);
  if (!routes) {
    // An app makes its receiver at start-up, which says once that a key is missing; this one is made
    // on its first request, which says so itself, so the start-up report is left out.
    let starting = true;
    const onError = (error, where) => {
      if (!starting) setup.options.onError?.(error, where);
    };
    const receiver = createReceiver({ ...setup.options, onError });
    starting = false;
    routes = new Map([
      [setup.paths.destination, receiver.destination(setup.destination.definition, setup.destination.handler)],
      [setup.paths.callback, receiver.callback(setup.callback, setup.callbackOptions)],
      [setup.paths.failureCallback, receiver.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
    ]);
    made.set(setup, routes);
  }
  return routes.get(new URL(request.url).pathname);
}
