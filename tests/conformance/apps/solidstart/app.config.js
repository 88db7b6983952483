import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig } from '@solidjs/start/config';

// This app lives in the suite's workspace, whose root has h3 2 (for the h3 targets). SolidStart 1
// runs on vinxi's h3 1, which its own server code must find too: `h3` is pointed there (its ESM entry).
// (vinxi exports neither `require` nor its package.json: its folder is found on the lookup path.)
const require = createRequire(import.meta.url);
const vinxi = require.resolve
  .paths('vinxi')
  ?.map((folder) => join(folder, 'vinxi', 'package.json'))
  .find((file) => existsSync(file));
if (!vinxi) throw new Error('vinxi is not installed');
const h3 = join(dirname(createRequire(vinxi).resolve('h3/package.json')), 'dist', 'index.mjs');
// The suite's remote setup (its handlers call the test process over HTTP, as in Bun and Deno),
// named by the test at build time.
const remoteSetup = process.env.MAILROOM_CONFORMANCE_REMOTE_SETUP;
const alias = { h3, ...(remoteSetup ? { '#conformance-remote-setup': remoteSetup } : {}) };

// Built as a new project builds (Nitro's node-server preset) and served as its users serve it,
// `node .output/server/index.mjs`: one server for every receiver profile of a test file.
export default defineConfig({ vite: { resolve: { alias } }, server: { alias } });
