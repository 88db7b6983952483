import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { signRequest } from '@mailroom/core/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The framework pages' code, run as written: the first `ts` block of a page is saved beside the
// suite (so it resolves the workspace's packages), started in its runtime on port 0 (`PORT`), and
// sent signed deliveries. A page whose snippet stops working fails here.

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const DOCS = join(PACKAGE, '..', '..', 'docs', 'frameworks');
const BUN = [join(PACKAGE, 'node_modules', '.bin', 'bun'), join(PACKAGE, '..', '..', 'node_modules', '.bin', 'bun')].find((path) =>
  existsSync(path),
)!;
const KEY = 'sig_docs_current';
const NEXT_KEY = 'sig_docs_next';
const ASTRO = join(dirname(createRequire(import.meta.url).resolve('astro/package.json')), 'astro.js');
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

/**
 * The files of a block that holds several, each headed by its path as a comment
 * (`// src/pages/api/orders.ts`), as the framework pages write them.
 */
function filesOf(code: string): Map<string, string> {
  const files = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of code.split('\n')) {
    const path = /^\/\/ ([\w./-]+\.(?:ts|js|mjs))$/.exec(line)?.[1];
    if (path) files.set(path, (current = []));
    else current?.push(line);
  }
  return new Map([...files].map(([path, lines]) => [path, lines.join('\n')]));
}

async function snippetOf(page: string): Promise<string> {
  const text = await readFile(join(DOCS, page), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
  if (!code) throw new Error(`${page} has no ts block`);
  return code;
}

/** A fresh folder inside this package, so the snippet resolves the workspace's packages. */
async function folder(): Promise<string> {
  const cache = join(PACKAGE, 'node_modules', '.cache', 'doc-snippets');
  await mkdir(cache, { recursive: true });
  return mkdtemp(join(cache, 'app-'));
}

/** Starts a server process with the keys in its environment; resolves with the URL it printed. */
async function startServer(command: string, args: string[], cwd: string): Promise<{ url: string; output: () => string }> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', MAILROOM_CURRENT_SIGNING_KEY: KEY, MAILROOM_NEXT_SIGNING_KEY: NEXT_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the snippet did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /(http:\/\/\S+?)\/?\s/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1].replace('0.0.0.0', '127.0.0.1').replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the snippet exited (${code}):\n${output}`)));
  });
  return { url, output: () => output };
}

/** Runs `code` with Bun as the page says (`bun run server.ts`). */
async function runWithBun(code: string): Promise<{ url: string; output: () => string }> {
  const root = await folder();
  await writeFile(join(root, 'server.ts'), code);
  return startServer(BUN, ['run', 'server.ts'], root);
}

/** Writes a page's files into a new project, builds it with Astro and starts its standalone server. */
async function buildAstroApp(files: Map<string, string>): Promise<{ root: string; url: string; output: () => string }> {
  const root = await folder();
  await writeFile(join(root, 'package.json'), '{ "type": "module" }\n');
  // A .env with the keys, as a user's project has: the build must not write them into its output.
  await writeFile(join(root, '.env'), `MAILROOM_CURRENT_SIGNING_KEY=${KEY}\nMAILROOM_NEXT_SIGNING_KEY=${NEXT_KEY}\n`);
  for (const [path, text] of files) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  await promisify(execFile)(process.execPath, [ASTRO, 'build'], { cwd: root, env: { ...process.env, NODE_ENV: 'production' } });
  return { root, ...(await startServer(process.execPath, ['dist/server/entry.mjs'], root)) };
}

/** A delivery of `body` to `path`, signed for the URL the service would call: `signedPath` when given. */
async function deliver(url: string, path: string, body: unknown, signedPath = path): Promise<Response> {
  const signed = await signRequest({ url: url + signedPath, body, key: KEY });
  return fetch(url + path, { method: 'POST', headers: signed.headers, body: signed.body });
}

describe.each(['bun.md', 'elysia.md'])('docs/frameworks/%s: the snippet as written', (page) => {
  it('verifies a signed delivery and hands the handler its typed body', async () => {
    const app = await runWithBun(await snippetOf(page));
    expect((await deliver(app.url, '/orders', { orderId: 'ord_docs' })).status).toBe(200);
    await expect.poll(app.output).toContain('ord_docs');
    // The schema and the signature still decide: a bad body is refused for good (489), a forged one unauthorised.
    expect((await deliver(app.url, '/orders', { orderId: 42 })).status).toBe(489);
    const forged = await signRequest({ url: `${app.url}/orders`, body: { orderId: 'x' }, key: 'sig_someone_else' });
    expect((await fetch(`${app.url}/orders`, { method: 'POST', headers: forged.headers, body: forged.body })).status).toBe(401);
  });
});

describe('docs/frameworks/elysia.md: the traps it names', () => {
  it('refuses every delivery to a route registered after an onParse hook, with the fix in the answer', async () => {
    // The page's two lines swapped, the hook given a body that reads the request.
    const lines = (await snippetOf('elysia.md')).split('\n');
    const route = lines.findIndex((line) => line.includes('.all(orderPlaced.path'));
    const hook = lines.findIndex((line) => line.includes('.onParse('));
    expect(route).toBeLessThan(hook);
    [lines[route], lines[hook]] = ['  .onParse(async ({ request }) => request.text())', lines[route]!];
    const app = await runWithBun(lines.join('\n'));
    const answer = await deliver(app.url, '/orders', { orderId: 'ord_parsed' });
    expect(answer.status).toBe(500);
    expect(await answer.text()).toMatch(/onParse/);
    expect(app.output()).not.toContain('ord_parsed');
  });

  it('refuses a mounted endpoint, which sees the URL without its prefix (401)', async () => {
    const code = (await snippetOf('elysia.md')).replace(/\.all\(orderPlaced\.path[^\n]*/, ".mount('/hooks', orders.fetch)");
    const app = await runWithBun(code);
    expect((await deliver(app.url, '/hooks/orders', { orderId: 'ord_mounted' })).status).toBe(401);
  });
});

describe('docs/frameworks/astro.md: the code as written, built and served', () => {
  // The build takes a few seconds alone, and a minute on a busy 2-core machine.
  vi.setConfig({ testTimeout: 240_000 });

  it('verifies a signed delivery, and the build holds no key', async () => {
    const app = await buildAstroApp(filesOf(await snippetOf('astro.md')));
    expect((await deliver(app.url, '/api/orders', { orderId: 'ord_astro' })).status).toBe(200);
    await expect.poll(app.output).toContain('ord_astro');
    expect((await deliver(app.url, '/api/orders', { orderId: 42 })).status).toBe(489);
    const forged = await signRequest({ url: `${app.url}/api/orders`, body: { orderId: 'x' }, key: 'sig_someone_else' });
    expect((await fetch(`${app.url}/api/orders`, { method: 'POST', headers: forged.headers, body: forged.body })).status).toBe(401);
    // The keys are read when the server runs: no file of the build names them.
    for (const file of await readdir(join(app.root, 'dist'), { recursive: true })) {
      if (!/\.(m?js|json|html)$/.test(file)) continue;
      expect(await readFile(join(app.root, 'dist', file), 'utf8')).not.toContain(KEY);
    }
  });
});
