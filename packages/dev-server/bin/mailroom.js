#!/usr/bin/env node
// The `mailroom` command. A committed file rather than dist/cli.js itself: npm links a workspace's
// bin when it installs, before anything is built, and skips a target that does not exist yet.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'mailroom: @mailroom/dev-server is not built yet. In the Mailroom repository run `npm run build` (or `npm start`) first.\n',
  );
  process.exit(1);
}
await import(cli.href);
