import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv, createApp, publicAddress, run, runBehind, startDevServer, type App } from '../src/harness';

// Fresh Hono (on @hono/node-server), Fastify 5, Koa 3, AWS Lambda (behind a local HTTP API
// stand-in), bare h3 2, Elysia (on Bun), plain Cloudflare Worker (bundled by esbuild, on workerd),
// Bun.serve and Deno.serve apps from the packed packages, built with their own tsconfig (nodenext) and run against
// `mailroom dev`: send, receive, callback, failure callback.
// The app installs content-disposition 1.0.1 itself, as docs/frameworks/koa.md tells Koa users:
// @types/koa reads its Options type from whichever content-disposition is hoisted, and 1.1 (which
// express 5 pulls in, here through the MCP SDK of @mailroom/dev-server) ships types without it.
const BUN = fileURLToPath(new URL('../../../node_modules/.bin/bun', import.meta.url));
const WORKERD = fileURLToPath(new URL('../../../node_modules/.bin/workerd', import.meta.url));
const DENO = fileURLToPath(new URL('../../../node_modules/.bin/deno', import.meta.url));
let app: App;
let compiled: { code: number | null; output: string };
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  app = await createApp('frameworks', {
    packed: inject('tarballs'),
    mailroom: ['core', 'adapters', 'dev-server'],
    // Held at Koa's own version, as docs/frameworks/koa.md says (see above).
    resolved: ['content-disposition@1.0.1'],
    locked: [
      'hono',
      '@hono/node-server',
      'h3',
      'elysia',
      'crossws',
      'fastify',
      'koa',
      '@types/koa',
      '@koa/router',
      '@koa/bodyparser',
      'zod',
      'esbuild',
      'typescript',
      '@types/node',
    ],
  });
  // Elysia's app compiles as \`bun create elysia\` sets one up, with skipLibCheck (Elysia's own
  // declarations do not check under strict tsc); Mailroom's are checked by tsconfig.json, the others'.
  compiled = { code: 0, output: '' };
  for (const project of ['tsconfig.json', 'tsconfig.elysia.json']) {
    const result = await run(process.execPath, [join(app.dir, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: app.dir,
      allowFailure: true,
    });
    compiled = { code: compiled.code || result.code, output: compiled.output + result.stdout + result.stderr };
  }
});

afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
  await app?.remove();
});

const report = (stdout: string) =>
  JSON.parse(
    stdout
      .split('\n')
      .find((line) => line.startsWith('REPORT '))!
      .slice('REPORT '.length),
  );

describe('fresh Hono, Fastify, Koa, Lambda, h3, Elysia, plain Worker, Bun.serve and Deno.serve apps', () => {
  it('build with their own tsconfig (nodenext)', () => {
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);
  });

  it.each([
    ['hono', ['/order-placed']],
    ['fastify', ['{"a":1}', '/order-placed']],
    ['koa', ['/order-placed']],
    ['lambda', ['/order-placed']],
    ['h3', ['/order-placed']],
    ['elysia', ['/order-placed']],
    ['worker', ['bindings']],
    ['bun', ['Bun.serve']],
    ['deno', ['Deno.serve']],
  ])('%s: a message, its callback and a failure callback end to end through mailroom dev', async (framework, context) => {
    const address = await publicAddress();
    running.push(address);
    const dev = await startDevServer(app, address.url);
    running.push(dev);
    // Elysia and Bun.serve run on Bun, Deno.serve on Deno, the Worker on workerd (the repository's,
    // from npm), the others on Node.
    const [command, args] =
      framework === 'elysia' || framework === 'bun'
        ? [BUN, [`dist/${framework}.js`]]
        : framework === 'deno'
          ? // As docs/frameworks/deno.md says: the network, and the environment for the keys.
            [DENO, ['run', '--allow-net', '--allow-env', '--allow-read', `dist/${framework}.js`]]
          : framework === 'worker'
            ? [process.execPath, ['dist/worker-launch.js', WORKERD]]
            : [process.execPath, [`dist/${framework}.js`]];
    const result = await runBehind(address, command, args, {
      cwd: app.dir,
      env: cleanEnv({ ...dev.env, PORT: '0' }),
    });
    expect(result.code, result.stderr).toBe(0);
    const { seen, forged } = report(result.stdout);
    expect(seen.orders).toEqual([{ orderId: 'o-1' }]);
    expect(seen.frameworkContext).toEqual(context);
    expect(seen.callbacks).toEqual([{ status: 200, isFinalAttempt: true }]);
    expect(seen.failures).toEqual([{ dlqId: expect.any(String), sourceBody: { orderId: 'o-2' } }]);
    expect(forged).toBe(401);
  });
});
