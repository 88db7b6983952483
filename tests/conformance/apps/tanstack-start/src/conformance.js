import { createReceiver } from '@mailroom/core';

// The suite serves this app once per receiver profile, several at a time, on its production build
// (`vite preview`) and under `vite dev`, in the test's own process: each server registers its
// profile's setup by the port it listens on. Each profile's endpoints are made once.
const SETUPS = Symbol.for('mailroom.conformance.setups');
const made = new WeakMap();

/** The endpoint for the request's path under its server's profile (by the port in Host), or undefined where the app serves nothing. */
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
