import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// This app lives in the suite's workspace, whose root has h3 2 (for the h3 targets). A Nuxt 3 app
// resolves `h3` (its auto-imports: readRawBody, getRequestURL) to Nitro's h3 1, so it is pointed there.
const nitro = createRequire(createRequire(import.meta.url).resolve('nuxt/package.json')).resolve('nitropack/package.json');
// Its ESM entry, not its folder: `nuxi dev` leaves h3 outside its bundle, and Node's ESM loader
// imports no folder.
const h3 = join(dirname(createRequire(nitro).resolve('h3/package.json')), 'dist', 'index.mjs');
// Under `nuxi dev`, the suite's remote setup: the test names its file (the production build never loads it).
const remoteSetup = process.env.MAILROOM_CONFORMANCE_REMOTE_SETUP;
const alias = { h3, ...(remoteSetup ? { '#conformance-remote-setup': remoteSetup } : {}) };

// The suite imports the production build in its own process: Nitro's node-listener preset builds the
// same server as the default node-server one, and exports its request listener instead of listening.
export default defineNuxtConfig({
  compatibilityDate: '2025-07-01',
  telemetry: false,
  devtools: { enabled: false },
  alias,
  nitro: { preset: 'node-listener', alias },
});
