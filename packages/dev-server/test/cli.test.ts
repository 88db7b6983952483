import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { createMessagingClient, createReceiver, defineDestination } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitUntil } from './helpers/wait';
import { parseCliArgs, USAGE } from '../src/cli/parse-cli-args';
import { runCli } from '../src/cli/run-cli';
import {
  DEV_CURRENT_SIGNING_KEY,
  DEV_MANAGEMENT_PASSWORD,
  DEV_MANAGEMENT_USER,
  DEV_NEXT_SIGNING_KEY,
  DEV_READ_ONLY_TOKEN,
  DEV_TOKEN,
} from '../src/index';

describe('mailroom CLI', () => {
  it('parses every option of mailroom dev', () => {
    expect(parseCliArgs(['dev'], {})).toEqual({
      kind: 'dev',
      options: {},
      appUrl: 'http://localhost:3000',
      appUrlFrom: 'the default; set --app-url or MAILROOM_APP_URL to change it',
    });
    expect(
      parseCliArgs(
        [
          'dev',
          '--port',
          '0',
          '--host',
          '0.0.0.0',
          '--data-dir',
          '/tmp/x',
          '--header-prefix',
          'Upstash',
          '--issuer',
          'Upstash',
          '--plan',
          'paid',
          '--log',
          'json',
          '--region',
          'eu-central-1',
          '--time-scale',
          '0.01',
          '--app-url',
          'https://app.test:8443/base/',
        ],
        {},
      ),
    ).toEqual({
      kind: 'dev',
      options: {
        port: 0,
        host: '0.0.0.0',
        dataDir: '/tmp/x',
        headerPrefix: 'Upstash',
        issuer: 'Upstash',
        plan: 'paid',
        log: 'json',
        region: 'eu-central-1',
        timeScale: 0.01,
      },
      appUrl: 'https://app.test:8443/base',
      appUrlFrom: '--app-url',
    });
    expect(parseCliArgs(['dev'], { MAILROOM_APP_URL: 'http://127.0.0.1:4000' })).toMatchObject({ appUrl: 'http://127.0.0.1:4000' });
    expect(parseCliArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseCliArgs(['dev', '-h'])).toEqual({ kind: 'help' });
  });

  it("defaults the app URL to the dev port of the project's framework, and says so", () => {
    const appUrlFor = (dependencies: string[]) => {
      const command = parseCliArgs(['dev'], {}, dependencies);
      return command.kind === 'dev' ? [command.appUrl, command.appUrlFrom] : [command.kind];
    };
    expect(appUrlFor(['astro', '@astrojs/node'])).toEqual([
      'http://localhost:4321',
      "Astro's dev port (astro in package.json); set --app-url or MAILROOM_APP_URL to change it",
    ]);
    expect(appUrlFor(['@sveltejs/kit', 'vite', 'wrangler'])[0]).toBe('http://localhost:5173');
    expect(appUrlFor(['@react-router/dev', 'react-router'])[0]).toBe('http://localhost:5173');
    expect(appUrlFor(['hono', 'wrangler'])[0]).toBe('http://localhost:8787');
    expect(appUrlFor(['vite', 'react'])[0]).toBe('http://localhost:5173');
    expect(appUrlFor(['nuxt'])[0]).toBe('http://localhost:3000');
    expect(appUrlFor(['next', 'react'])[1]).toContain('Next.js');
    expect(appUrlFor(['express'])).toEqual(['http://localhost:3000', 'the default; set --app-url or MAILROOM_APP_URL to change it']);
    // What the user said wins over what the project suggests.
    expect(parseCliArgs(['dev', '--app-url', 'http://localhost:9000'], {}, ['astro'])).toMatchObject({ appUrl: 'http://localhost:9000' });
    expect(parseCliArgs(['dev'], { MAILROOM_APP_URL: 'http://localhost:9001' }, ['astro'])).toMatchObject({
      appUrl: 'http://localhost:9001',
      appUrlFrom: 'MAILROOM_APP_URL',
    });
  });

  it('reads the framework from the package.json of the folder it starts in, and prints the app URL once', async () => {
    const project = await mkdtemp(join(tmpdir(), 'mailroom-cli-project-'));
    await writeFile(join(project, 'package.json'), JSON.stringify({ devDependencies: { '@sveltejs/kit': '^2', vite: '^8' } }));
    const out: string[] = [];
    const result = await runCli(['dev', '--port', '0'], { out: (text) => out.push(text), err: () => {} }, project);
    try {
      const banner = out.join('');
      expect(banner).toContain("App URL              http://localhost:5173 (SvelteKit's dev port (@sveltejs/kit in package.json)");
      expect(banner).toContain('MAILROOM_APP_URL=http://localhost:5173');
      // Said once beside the other settings, and once in the .env lines.
      expect(banner.match(/5173/g)).toHaveLength(2);
    } finally {
      if ('server' in result) await result.server.close();
      await rm(project, { recursive: true, force: true });
    }
    // A folder without a readable package.json keeps the default.
    const bare = await mkdtemp(join(tmpdir(), 'mailroom-cli-bare-'));
    await writeFile(join(bare, 'package.json'), '{ not json');
    const again: string[] = [];
    const second = await runCli(['dev', '--port', '0'], { out: (text) => again.push(text), err: () => {} }, bare);
    try {
      expect(again.join('')).toContain('MAILROOM_APP_URL=http://localhost:3000');
    } finally {
      if ('server' in second) await second.server.close();
      await rm(bare, { recursive: true, force: true });
    }
  });

  it('refuses bad input with a message', () => {
    for (const argv of [
      [],
      ['serve'],
      ['dev', '--time-scale', 'fast'],
      ['dev', '--time-scale', '-1'],
      ['dev', '--port', 'abc'],
      ['dev', '--port', '70000'],
      ['dev', '--plan', 'gold'],
      ['dev', '--log', 'xml'],
      ['dev', '--nope'],
      ['dev', '--app-url', 'localhost:3000'],
      ['dev', '--app-url', 'ftp://x.test'],
    ]) {
      const command = parseCliArgs(argv, {});
      expect([argv, command.kind]).toEqual([argv, 'error']);
    }
  });

  it('prints the MCP URL and a line to add it to Claude Code, Cursor and VS Code', async () => {
    const out: string[] = [];
    const result = await runCli(['dev', '--port', '0'], { out: (text) => out.push(text), err: () => {} }, tmpdir());
    if (!('server' in result)) throw new Error('the server did not start');
    try {
      const banner = out.join('');
      const url = `${result.server.url}/mcp`;
      expect(banner).toContain(`MCP at ${url}`);
      expect(banner).toContain(`claude mcp add --transport http mailroom ${url} --header "Authorization: Bearer ${result.server.token}"`);
      const cursor = /Cursor\s+\.cursor\/mcp\.json: (.+)/.exec(banner)?.[1];
      expect(JSON.parse(cursor!)).toEqual({
        mcpServers: { mailroom: { url, headers: { Authorization: `Bearer ${result.server.token}` } } },
      });
      const vscode = /VS Code\s+code --add-mcp '(.+)'/.exec(banner)?.[1];
      expect(JSON.parse(vscode!)).toMatchObject({ name: 'mailroom', type: 'http', url });
      // What the line says works: an MCP initialize with that header is answered.
      const answer = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${result.server.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      });
      expect(answer.status).toBe(200);
    } finally {
      await result.server.close();
    }
  });

  it('prints usage for --help and exits 2 on a usage error', async () => {
    const out: string[] = [];
    const err: string[] = [];
    expect(await runCli(['--help'], { out: (text) => out.push(text), err: (text) => err.push(text) })).toEqual({ exitCode: 0 });
    expect(out.join('')).toBe(USAGE);
    expect(USAGE).toContain('--data-dir');
    expect(await runCli(['dev', '--plan', 'gold'], { out: (text) => out.push(text), err: (text) => err.push(text) })).toEqual({
      exitCode: 2,
    });
    expect(err.join('')).toContain('--plan must be free or paid');
  });

  it('starts the server and prints URLs, credentials, keys and the environment to paste', async () => {
    const out: string[] = [];
    // Started outside any project, so the app URL is the default one.
    const result = await runCli(
      ['dev', '--port', '0', '--header-prefix', 'Upstash'],
      { out: (text) => out.push(text), err: () => {} },
      tmpdir(),
    );
    if (!('server' in result)) throw new Error('the server did not start');
    try {
      const text = out.join('\n');
      const { server } = result;
      for (const value of [
        server.url,
        server.managementUrl,
        DEV_TOKEN,
        DEV_READ_ONLY_TOKEN,
        DEV_MANAGEMENT_USER,
        DEV_MANAGEMENT_PASSWORD,
        DEV_CURRENT_SIGNING_KEY,
        DEV_NEXT_SIGNING_KEY,
      ]) {
        expect(text).toContain(value);
      }
      expect(text).toContain(`MAILROOM_URL=${server.url}\n`);
      expect(text).toContain(`MAILROOM_TOKEN=${DEV_TOKEN}\n`);
      expect(text).toContain(`MAILROOM_CURRENT_SIGNING_KEY=${DEV_CURRENT_SIGNING_KEY}\n`);
      expect(text).toContain(`MAILROOM_NEXT_SIGNING_KEY=${DEV_NEXT_SIGNING_KEY}\n`);
      expect(text).toContain(`MAILROOM_MANAGEMENT_URL=${server.managementUrl}\n`);
      expect(text).toContain(`MAILROOM_MANAGEMENT_USER=${DEV_MANAGEMENT_USER}\n`);
      expect(text).toContain(`MAILROOM_MANAGEMENT_PASSWORD=${DEV_MANAGEMENT_PASSWORD}\n`);
      expect(text).toContain('MAILROOM_HEADER_PREFIX=Upstash');
      expect(text).toContain('MAILROOM_ISSUER=Service');
      expect(text).toContain(`MAILROOM_APP_URL=${process.env.MAILROOM_APP_URL?.trim() || 'http://localhost:3000'}\n`);
      expect(server.managementUrl).toBe(`${server.url}/management/v2`);
      expect(DEV_CURRENT_SIGNING_KEY).toMatch(/^sig_/);
      expect(DEV_NEXT_SIGNING_KEY).toMatch(/^sig_/);
    } finally {
      await result.server.close();
    }
  });

  it('prints an .env that alone makes client.send(def, payload) deliver to the app at --app-url', async () => {
    const delivered: Array<{ path: string; body: unknown }> = [];
    const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
    const app = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        // The app's receiver, configured only from the printed lines too.
        void receiverEnv
          .destination(orderPlaced, (message) => void delivered.push({ path: req.url ?? '', body: message.body }))
          .handle({ method: req.method ?? 'POST', url: req.url, headers: req.headers, rawBody: Buffer.concat(chunks) })
          .then((out) => res.writeHead(out.status, out.headers).end(out.body));
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const out: string[] = [];
    const result = await runCli(['dev', '--port', '0', '--app-url', appUrl], { out: (text) => out.push(text), err: () => {} });
    if (!('server' in result)) throw new Error('the server did not start');
    let receiverEnv!: ReturnType<typeof createReceiver>;
    try {
      const env = Object.fromEntries(
        out
          .join('\n')
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line.startsWith('MAILROOM_'))
          .map((line) => line.split(/=(.*)/s).slice(0, 2)),
      );
      expect(env.MAILROOM_APP_URL).toBe(appUrl);
      receiverEnv = createReceiver({ env, onError: () => {} });
      const client = createMessagingClient({ env, retry: false });
      const { messageId } = await client.send(orderPlaced, { orderId: 'o-1' });
      expect(messageId).toMatch(/^msg_/);
      await waitUntil(
        () => delivered.length > 0,
        () => 'a delivery to the app',
      );
      expect(delivered).toEqual([{ path: '/order-placed', body: { orderId: 'o-1' } }]);
    } finally {
      await result.server.close();
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it("configures an app that receives messages and runs the service's Workflow SDK from the printed lines alone", async () => {
    // The documented set-up for the Workflow SDK: the service's prefix and issuer, one .env for both.
    const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
    const delivered: unknown[] = [];
    const steps: string[] = [];
    let handlers: { mailroom: ReturnType<typeof createReceiver>; workflow: (request: Request) => Promise<Response> } | undefined;
    const app = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void (async () => {
          const rawBody = Buffer.concat(chunks);
          if (req.url === orderPlaced.path) {
            const out = await handlers!.mailroom
              .destination(orderPlaced, (message) => void delivered.push(message.body))
              .handle({ method: req.method ?? 'POST', url: req.url, headers: req.headers, rawBody });
            res.writeHead(out.status, out.headers).end(out.body);
            return;
          }
          const headers = new Headers();
          for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
          const response = await handlers!.workflow(
            new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, ...(rawBody.length > 0 ? { body: rawBody } : {}) }),
          );
          res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
        })();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const out: string[] = [];
    const result = await runCli(['dev', '--port', '0', '--header-prefix', 'Upstash', '--issuer', 'Upstash', '--app-url', appUrl], {
      out: (text) => out.push(text),
      err: () => {},
    });
    if (!('server' in result)) throw new Error('the server did not start');
    try {
      const env = Object.fromEntries(
        out
          .join('\n')
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => /^(MAILROOM|QSTASH)_/.test(line))
          .map((line) => line.split(/=(.*)/s).slice(0, 2)),
      ) as Record<string, string>;
      expect(env.MAILROOM_HEADER_PREFIX).toBe('Upstash');
      expect(env.MAILROOM_ISSUER).toBe('Upstash');
      const { serve } = await import('@upstash/workflow');
      const { Client: QStashClient, Receiver } = await import('@upstash/qstash');
      handlers = {
        mailroom: createReceiver({ env, onError: () => {} }),
        workflow: serve<string>(
          async (context) => {
            await context.run('step', () => void steps.push(context.requestPayload));
          },
          {
            qstashClient: new QStashClient({ baseUrl: env.QSTASH_URL, token: env.QSTASH_TOKEN! }),
            receiver: new Receiver({ currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY!, nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY! }),
            url: `${appUrl}/workflow`,
            disableTelemetry: true,
          },
        ).handler,
      };
      await createMessagingClient({ env, retry: false }).send(orderPlaced, { orderId: 'o-1' });
      const { Client: WorkflowClient } = await import('@upstash/workflow');
      await new WorkflowClient({ baseUrl: env.QSTASH_URL, token: env.QSTASH_TOKEN! }).trigger({ url: `${appUrl}/workflow`, body: 'run' });
      await waitUntil(
        () => delivered.length > 0 && steps.length > 0,
        () => `a delivery and a workflow step (got ${delivered.length} and ${steps.length})`,
      );
      expect(delivered).toEqual([{ orderId: 'o-1' }]);
      expect(steps).toEqual(['run']);
    } finally {
      await result.server.close();
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('links its bin to a committed file, so npm creates the link before the first build', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      bin: Record<string, string>;
      files: string[];
    };
    const bin = manifest.bin.mailroom!;
    expect(bin.startsWith('./dist/')).toBe(false);
    expect(manifest.files).toContain(bin.replace(/^\.\//, '').split('/')[0]);
    const binPath = fileURLToPath(new URL(`../${bin}`, import.meta.url));
    const help = spawnSync(process.execPath, [binPath, 'dev', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(USAGE);
    // Without a command: every command, `dev` among them.
    const commands = spawnSync(process.execPath, [binPath, '--help'], { encoding: 'utf8' });
    expect(commands.status).toBe(0);
    expect(commands.stdout).toMatch(/^Usage: mailroom <command>/);
    expect(commands.stdout).toContain('schedules sync');
  });

  it('exits 1 when the port is taken', async () => {
    const first = await runCli(['dev', '--port', '0'], { out: () => {}, err: () => {} });
    if (!('server' in first)) throw new Error('the server did not start');
    try {
      const err: string[] = [];
      const second = await runCli(['dev', '--port', String(first.server.port)], { out: () => {}, err: (text) => err.push(text) });
      expect(second).toEqual({ exitCode: 1 });
      expect(err.join('')).toContain('EADDRINUSE');
      expect(err.join('')).toContain(
        `Port ${first.server.port} is taken (another mailroom dev?): stop what uses it, or start on another with --port <n>`,
      );
    } finally {
      await first.server.close();
    }
  });
});
