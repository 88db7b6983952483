import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createReceiver } from '@mailroom/core';
import { remoteSetup } from '#conformance-remote-setup';

// One server of this app serves every receiver profile of a test file: the test relays each profile
// to it from a port of its own and writes the profile's settings to `<port>.json` in the folder
// MAILROOM_CONFORMANCE_SETUPS names. The handlers call the suite's spies over HTTP. A profile's
// endpoints are made at its first request.
const profiles = new Map();

function make(config) {
  const { setup, settle } = remoteSetup(config);
  // An app makes its receiver at start-up, which says once that a key is missing; this one is made
  // on its first request, which says so itself, so the start-up report is left out.
  let starting = true;
  const onError = (error, where) => {
    if (!starting) setup.options.onError?.(error, where);
  };
  const receiver = createReceiver({ ...setup.options, onError });
  starting = false;
  const routes = new Map([
    [setup.paths.destination, receiver.destination(setup.destination.definition, setup.destination.handler)],
    [setup.paths.callback, receiver.callback(setup.callback, setup.callbackOptions)],
    [setup.paths.failureCallback, receiver.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
  ]);
  return { routes, settle };
}

/** The answer for the request's path, once every report it made has reached the test; 404 where the app serves nothing. */
export async function answer(request) {
  const url = new URL(request.url);
  // Read at each request: a port is reused by a later profile, whose bridge differs.
  const text = await readFile(join(process.env.MAILROOM_CONFORMANCE_SETUPS ?? '', `${url.port}.json`), 'utf8');
  let profile = profiles.get(text);
  if (!profile) profiles.set(text, (profile = make(JSON.parse(text))));
  const endpoint = profile.routes.get(url.pathname);
  if (!endpoint) return new Response('Not found', { status: 404 });
  try {
    return await endpoint.fetch(request);
  } finally {
    await profile.settle();
  }
}
