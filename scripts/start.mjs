#!/usr/bin/env node
// `npm start`: the main job. Until @mailroom/dev-server exists (issue 4) there is no local service to
// tour, so this says what exists today and how to try it, and exits 0 so `--tour-only` checks pass.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const devServer = existsSync(new URL('../packages/dev-server/package.json', import.meta.url));

if (devServer) {
  // Replaced by the real tour when the dev server lands.
  await import('./tour.mjs');
} else {
  console.log(`Mailroom (${root})

The local dev server and the guided tour are not built yet (issue 4).
What works today:
  - @mailroom/core: typed clients for the messaging and management interfaces,
    enqueue headers, retry-delay expressions and schedules.
    See README.md "Use the client" for a snippet.
  - npm test: builds every package and runs all tests, publint and attw.
`);
}
