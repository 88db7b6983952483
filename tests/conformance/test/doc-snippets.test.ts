import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signRequest } from '@mailroom/core/testing';
import { afterAll, describe, expect, it } from 'vitest';

// The framework pages' code, run as written: the first `ts` block of a page is saved beside the
// suite (so it resolves the workspace's packages), started in its runtime on port 0 (`PORT`), and
// sent signed deliveries. A page whose snippet stops working fails here.

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const DOCS = join(PACKAGE, '..', '..', 'docs', 'frameworks');
const BUN = [join(PACKAGE, 'node_modules', '.bin', 'bun'), join(PACKAGE, '..', '..', 'node_modules', '.bin', 'bun')].find((path) =>
  existsSync(path),
)!;
const KEY = 'sig_docs_current';
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

async function snippetOf(page: string): Promise<string> {
  const text = await readFile(join(DOCS, page), 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
  if (!code) throw new Error(`${page} has no ts block`);
  return code;
}

/** Runs `code` with Bun from a folder inside this package; resolves with its URL and what it printed. */
async function runWithBun(code: string): Promise<{ url: string; output: () => string }> {
  const cache = join(PACKAGE, 'node_modules', '.cache', 'doc-snippets');
  await mkdir(cache, { recursive: true });
  const folder = await mkdtemp(join(cache, 'app-'));
  const file = join(folder, 'server.ts');
  await writeFile(file, code);
  const child = spawn(BUN, ['run', file], {
    env: { ...process.env, PORT: '0', MAILROOM_CURRENT_SIGNING_KEY: KEY, MAILROOM_NEXT_SIGNING_KEY: 'sig_docs_next' },
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
