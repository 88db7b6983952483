import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMailroom } from '@mailroom/adapters/h3';

// The suite serves this app once per receiver profile, several at a time. The production build runs
// in the test's own process: each server registers its profile's setup by the port it listens on.
// Under `nuxi dev` the server routes run in Nitro's worker thread, which shares nothing with the
// test: there the test writes each port's settings to a file, and the handlers call back to it over
// HTTP (the suite's remote setup, as in Bun and Deno). Each profile's endpoints are made once.
const SETUPS = Symbol.for('mailroom.conformance.setups');
const made = new WeakMap();
const remote = new Map();

/** The setup of the profile served on `port`, and what to await before answering (the reports made). */
async function setupOf(port) {
  const local = globalThis[SETUPS]?.get(port);
  if (local) return { setup: local, settle: async () => {} };
  const dir = process.env.MAILROOM_CONFORMANCE_SETUPS;
  if (import.meta.dev && dir) {
    // Read at each request: a port is reused by a later profile, whose bridge differs.
    const text = readFileSync(join(dir, `${port}.json`), 'utf8');
    let entry = remote.get(text);
    if (!entry) {
      const { remoteSetup } = await import('#conformance-remote-setup');
      entry = remoteSetup(JSON.parse(text));
      remote.set(text, entry);
    }
    return entry;
  }
  throw new Error(`no conformance setup for port ${port}`);
}

/** The handler for the event's path under its server's profile, or undefined when the app serves nothing there. */
export async function conformanceHandler(event) {
  const url = getRequestURL(event);
  const { setup, settle } = await setupOf(url.port);
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
  const handler = routes.get(url.pathname);
  return (
    handler &&
    (async (event) => {
      try {
        return await handler(event);
      } finally {
        await settle();
      }
    })
  );
}
