import { createReceiver } from '@mailroom/core';
import { remoteSetup } from '#conformance-remote-setup';

// Each server of this app serves one receiver profile, from the settings the test process started it
// with (MAILROOM_CONFORMANCE); its handlers call the suite's spies over HTTP. The endpoints are made
// at the first request.
let routes;
let settle;

function make() {
  const remote = remoteSetup(JSON.parse(process.env.MAILROOM_CONFORMANCE ?? '{}'));
  const { setup } = remote;
  settle = remote.settle;
  // An app makes its receiver at start-up, which says once that a key is missing; this one is made
  // on its first request, which says so itself, so the start-up report is left out.
  let starting = true;
  const onError = (error, where) => {
    if (!starting) setup.options.onError?.(error, where);
  };
  const receiver = createReceiver({ ...setup.options, onError });
  starting = false;
  return new Map([
    [setup.paths.destination, receiver.destination(setup.destination.definition, setup.destination.handler)],
    [setup.paths.callback, receiver.callback(setup.callback, setup.callbackOptions)],
    [setup.paths.failureCallback, receiver.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
  ]);
}

/** The answer for the request's path, once every report it made has reached the test; 404 where the app serves nothing. */
export async function answer(request) {
  routes ??= make();
  const endpoint = routes.get(new URL(request.url).pathname);
  if (!endpoint) return new Response('Not found', { status: 404 });
  try {
    return await endpoint.fetch(request);
  } finally {
    await settle();
  }
}
