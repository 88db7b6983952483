import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv, createApp, publicAddress, run, runBehind, startDevServer, type App } from '../src/harness';

// Express 5 (ESM, nodenext), a CommonJS consumer, the three moduleResolution modes, and a minified
// bundle, all from one fresh install of the packed packages.
let app: App;
let compiled: { code: number | null; output: string };
const running: Array<{ stop(): Promise<void> }> = [];

const node = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, args, { cwd: app.dir, env: cleanEnv(env), allowFailure: true });
const tsc = (project: string) =>
  run(process.execPath, [join(app.dir, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: app.dir, allowFailure: true });
const report = (stdout: string) =>
  JSON.parse(
    stdout
      .split('\n')
      .find((line) => line.startsWith('REPORT '))!
      .slice('REPORT '.length),
  );

beforeAll(async () => {
  app = await createApp('node', {
    packed: inject('tarballs'),
    mailroom: ['core', 'adapters', 'dev-server'],
    locked: ['express', 'zod', 'typescript', 'esbuild', 'undici', '@types/node', '@types/express'],
  });
  // The app's own build (nodenext): the runs below start its output.
  const result = await tsc('tsconfig.json');
  compiled = { code: result.code, output: result.stdout + result.stderr };
});

afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
  await app?.remove();
});

describe('types of every subpath', () => {
  it('builds with its own tsconfig (nodenext)', () => {
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);
  });

  it.each(['tsconfig.node10.json', 'tsconfig.bundler.json'])('type-checks every subpath with %s', async (project) => {
    const result = await tsc(project);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('an Express 5 ESM app configured only by what `mailroom dev` printed', () => {
  it('runs the README path end to end, and every defect users met stays fixed', async () => {
    const address = await publicAddress();
    running.push(address);
    const dev = await startDevServer(app, address.url);
    running.push(dev);
    expect(Object.keys(dev.env).sort()).toEqual(
      [
        'APP_URL',
        'CURRENT_SIGNING_KEY',
        'HEADER_PREFIX',
        'ISSUER',
        'MANAGEMENT_PASSWORD',
        'MANAGEMENT_URL',
        'MANAGEMENT_USER',
        'NEXT_SIGNING_KEY',
        'TOKEN',
        'URL',
      ].map((name) => `MAILROOM_${name}`),
    );
    const result = await runBehind(address, process.execPath, ['dist/main.js'], { cwd: app.dir, env: cleanEnv({ ...dev.env, PORT: '0' }) });
    expect(result.code, result.stderr).toBe(0);
    const { seen, replay, crash, parsers } = report(result.stdout);
    // Behind app.use(mailroom.exceptDeliveries(express.json())): the app's own route parses JSON, a
    // signed delivery with broken JSON is our 489 (no HTML page), and an unsigned request to a
    // Mailroom route is Mailroom's to refuse (401, as in Hono and Fastify): it never reaches a handler.
    expect(parsers).toEqual({ echo: { a: 1 }, badJson: [489, false], unsigned: 401 });
    expect(seen.orders).toEqual([{ orderId: 'o-1' }]);
    // A 200 ends the retries: the callback says it was the final attempt.
    expect(seen.callbacks).toEqual([{ status: 200, isFinalAttempt: true }]);
    // The failure callback of a message whose body broke the schema reaches the handler.
    expect(seen.failures).toEqual([{ dlqId: expect.any(String), valid: false, text: '{"orderId":42}', issues: 1 }]);
    // A token signed for another endpoint of the same app is refused.
    expect(replay).toBe(401);
    // A crash answers a small JSON 500: no stack, no HTML, no message.
    expect(crash).toEqual({ status: 500, contentType: 'application/json', body: '{"error":"handler failed"}' });
    expect(result.stdout).not.toContain('secret-connection-string');
  });

  it('serves the dev console from the installed package, behind the printed token', async () => {
    const dev = await startDevServer(app, 'http://127.0.0.1:1');
    running.push(dev);
    const link = dev.output().match(/Console\s+(\S+#token=\S+)/)?.[1];
    expect(link, dev.output()).toBeDefined();
    const page = await fetch(link!.split('#')[0]!);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = html.match(/src="([^"]+\.js)"/)?.[1];
    expect(script).toMatch(/^\/console\/assets\//);
    expect((await fetch(new URL(script!, link!))).status).toBe(200);
    expect((await fetch(new URL('/v2/events', link!))).status).toBe(401);
  });

  it('warns at creation when no signing key is configured', async () => {
    const result = await node(['dist/no-keys.js']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/MAILROOM_CURRENT_SIGNING_KEY.*MAILROOM_NEXT_SIGNING_KEY/);
    expect(result.stdout.trim()).toBe('created');
  });
});

describe('a CommonJS consumer', () => {
  it('requires the root, /node and /testing, receives a message sent through the dev server and refuses a forgery', async () => {
    const dev = await startDevServer(app, 'http://127.0.0.1:1');
    running.push(dev);
    const result = await node(['cjs-app.cjs'], dev.env);
    expect(result.code, result.stderr).toBe(0);
    expect(report(result.stdout)).toEqual({ received: [{ orderId: 'cjs-1' }], forged: 401 });
  });

  it('serves the dev console from require("@mailroom/dev-server")', async () => {
    const result = await node(['cjs-console.cjs']);
    expect(result.code, result.stderr).toBe(0);
    expect(report(result.stdout)).toEqual({ page: 200, asset: 200 });
  });
});

describe('a minified bundle', () => {
  it('keeps the error names', async () => {
    await run(
      join(app.dir, 'node_modules/.bin/esbuild'),
      ['src/minified.ts', '--bundle', '--minify', '--platform=node', '--format=esm', '--outfile=bundle/minified.mjs', '--log-level=error'],
      { cwd: app.dir },
    );
    const result = await node(['bundle/minified.mjs']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(['ConfigError:true', 'SignatureError']);
  });
});

describe('the mailroom bin', () => {
  it('runs from the installed package', async () => {
    const result = await run(join(app.dir, 'node_modules/.bin/mailroom'), ['dev', '--help'], { cwd: app.dir });
    expect(result.stdout).toContain('Usage: mailroom dev');
    expect(result.stdout).toContain('--app-url');
    const commands = await run(join(app.dir, 'node_modules/.bin/mailroom'), ['--help'], { cwd: app.dir });
    expect(commands.stdout).toContain('schedules sync');
  });
});
