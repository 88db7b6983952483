import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server';

// The official MCP conformance suite (`@modelcontextprotocol/conformance`, its server scenarios)
// against `/mcp` of a running `mailroom dev`. The suite's client sends no Authorization header, so
// it reaches the server through a loopback proxy that adds the full token, as an agent's
// configuration does; the proxy forwards the Host and Origin checks as the server's own.

const SUITE = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
const ON_NODE_20 = fileURLToPath(new URL('./fixtures/conformance-on-node20.mjs', import.meta.url));
const BASELINE = fileURLToPath(new URL('./fixtures/mcp-conformance-baseline.yaml', import.meta.url));

let server: TestServer;
let proxy: http.Server;
let proxyUrl: string;

beforeAll(async () => {
  server = await startTestServer();
  const target = new URL(server.server.url);
  proxy = http.createServer((req, res) => {
    const headers = { ...req.headers, host: target.host, authorization: `Bearer ${server.server.token}` };
    // The proxy's own origin stands for the server's; any other origin passes through unchanged.
    if (headers.origin === proxyUrl) headers.origin = target.origin;
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await server?.close();
});

function runSuite(): Promise<{ code: number | null; output: string }> {
  const major = Number(process.versions.node.split('.')[0]);
  const args = [
    ...(major < 22 ? ['--import', ON_NODE_20] : []),
    SUITE,
    'server',
    '--url',
    `${proxyUrl}/mcp`,
    '--expected-failures',
    BASELINE,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the MCP conformance suite against mailroom dev', () => {
  it('passes every server scenario for what mailroom dev offers, and fails only those it does not offer', async () => {
    const { code, output } = await runSuite();
    expect(code, output).toBe(0);
    expect(output).toContain('Baseline check passed');
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'resources-list', 'dns-rebinding-protection'])
      expect(output, scenario).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
  }, 120_000);
});
