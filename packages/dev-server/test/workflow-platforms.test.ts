import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient, type RouteFunction, type WorkflowContext, type WorkflowServeOptions } from '@upstash/workflow';
import * as onExpress from '@upstash/workflow/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, useBuiltCli, type CliProcess } from './helpers/cli-process';
import { startTestServer, type TestServer } from './helpers/test-server';
import { waitUntil } from './helpers/wait';

// The Workflow SDK's own framework adapters (Express, Next.js) on `mailroom dev`, with what needs
// two workflows (`context.invoke`), a webhook, and a `mailroom dev` process killed mid-run.

const WORKFLOW_PREFIX = { headerPrefix: 'Upstash', issuer: 'Upstash' } as const;

// The Next.js adapter's types import `next`, whose global types would change this package's; its code does not.
const onNext = (await import('@upstash/workflow/nextjs' as string)) as {
  serve<T>(route: RouteFunction<T, unknown>, options: WorkflowServeOptions<T>): { POST: (request: Request) => Promise<Response> };
};

let dev: TestServer | undefined;
let app: Server | undefined;

afterEach(async () => {
  app?.closeAllConnections();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
  await dev?.close();
  app = undefined;
  dev = undefined;
});

async function listen(server: Server): Promise<string> {
  app = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** What the SDK needs to reach a dev server: its client, and a receiver with its keys. */
function sdkOptions(server: { url: string; token: string; currentSigningKey: string; nextSigningKey: string }) {
  return {
    qstashClient: new QStashClient({ baseUrl: server.url, token: server.token }),
    receiver: new Receiver({ currentSigningKey: server.currentSigningKey, nextSigningKey: server.nextSigningKey }),
    disableTelemetry: true,
  };
}

/** A Node server handing each request to a Web handler, as Next.js's app router does with `POST`. */
function webServer(handle: (request: Request) => Promise<Response>): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const url = `http://${req.headers.host}${req.url}`;
      const response = await handle(new Request(url, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })();
  });
}

const runEnded = (server: TestServer, runId: string, state: string) =>
  server.waitForEvents('workflow-run', 1, (event) => event.runId === runId && event.state === state, 20_000);

describe('the Workflow SDK adapters on mailroom dev', () => {
  it("runs serveMany on the SDK's Express adapter: a workflow invokes two others and gets their results", async () => {
    dev = await startTestServer({ ...WORKFLOW_PREFIX, timeScale: 0.001 });
    const seen: unknown[] = [];
    const child = onExpress.createWorkflow(async (context: WorkflowContext<{ n: number }>) => {
      const doubled = await context.run('double', () => context.requestPayload.n * 2);
      return { doubled, header: context.headers.get('x-invoked-by') };
    });
    const failing = onExpress.createWorkflow(async (context: WorkflowContext<string>) => {
      await context.run('fail', () => {
        throw new Error('the invoked run fails');
      });
    });
    const parent = onExpress.createWorkflow(async (context: WorkflowContext<string>) => {
      const ok = await context.invoke('invoke child', { workflow: child, body: { n: 21 }, headers: { 'x-invoked-by': 'parent' } });
      const bad = await context.invoke('invoke failing', { workflow: failing, body: 'x', retries: 0 });
      await context.run('record', () => void seen.push({ ok, bad }));
      return 'parent done';
    });
    const express_ = express();
    express_.use(express.json());
    express_.use('/workflows', onExpress.serveMany({ parent, child, failing }, sdkOptions(dev.server)));
    const appUrl = await listen(createServer(express_));
    const { workflowRunId } = await new WorkflowClient({ baseUrl: dev.server.url, token: dev.server.token }).trigger({
      url: `${appUrl}/workflows/parent`,
      body: 'go',
    });
    await runEnded(dev, workflowRunId, 'RUN_SUCCESS');
    expect(seen).toEqual([
      {
        ok: { body: { doubled: 42, header: 'parent' }, isFailed: false, isCanceled: false },
        bad: { body: undefined, isFailed: true, isCanceled: false },
      },
    ]);
    // Three runs, each with its own state: the parent's log lists the invoked runs as steps of their own.
    const runs = (await dev.messaging.workflows.logs({})).runs;
    expect(runs.map((run) => [run.workflowUrl.split('/').at(-1), run.workflowState]).sort()).toEqual([
      ['child', 'RUN_SUCCESS'],
      ['failing', 'RUN_FAILED'],
      ['parent', 'RUN_SUCCESS'],
    ]);
  });

  it("runs on the SDK's Next.js adapter, and resumes a wait on a webhook called before and after the run waits", async () => {
    dev = await startTestServer({ ...WORKFLOW_PREFIX, timeScale: 0.001 });
    const seen: unknown[] = [];
    let webhookUrl = '';
    let appUrl = '';
    const { POST } = onNext.serve<string>(async (context) => {
      const webhook = await context.createWebhook('hook');
      // A third party calls back before the run waits: the call is kept for the wait.
      await context.run('hand out', async () => {
        webhookUrl = webhook.webhookUrl;
        await fetch(`${webhook.webhookUrl}?early=1`, { method: 'POST', body: 'early', headers: { 'x-from': 'early' } });
      });
      const first = await context.waitForWebhook('first call', webhook, '1d');
      const second = await context.waitForWebhook('second call', webhook, '1d');
      const read = async (result: typeof first) =>
        result.timeout
          ? 'timeout'
          : { url: result.request.url, from: result.request.headers.get('x-from'), body: await result.request.text() };
      await context.run('record', async () => void seen.push([await read(first), await read(second)]));
    }, sdkOptions(dev.server));
    appUrl = await listen(webServer((request) => POST(request)));
    const client = new WorkflowClient({ baseUrl: dev.server.url, token: dev.server.token });
    const { workflowRunId } = await client.trigger({ url: `${appUrl}/hooked`, body: 'go' });
    // The second call comes once the run waits again.
    const eventId = () => webhookUrl.split('/').at(-1) ?? '';
    await waitUntil(() => webhookUrl !== '', 'the webhook URL', 20_000);
    await waitUntil(async () => (await client.getWaiters({ eventId: eventId() })).length > 0, 'the second wait', 20_000);
    const called = await fetch(webhookUrl, { method: 'PUT', body: 'late', headers: { 'x-from': 'late' } });
    expect(called.status).toBe(200);
    await runEnded(dev, workflowRunId, 'RUN_SUCCESS');
    expect(seen).toEqual([
      [
        { url: `${webhookUrl}?early=1`, from: 'early', body: 'early' },
        { url: webhookUrl, from: 'late', body: 'late' },
      ],
    ]);
    expect(webhookUrl.startsWith(`${dev.server.url}/v2/workflows/hooks/`)).toBe(true);
    // Once the run ended the webhook is gone; a wrong user id never was one.
    expect((await fetch(webhookUrl, { method: 'POST', body: 'after' })).status).toBe(404);
    expect((await fetch(webhookUrl.replace(/hooks\/[^/]+/, 'hooks/someone-else'), { method: 'POST' })).status).toBe(404);
  });
});

describe('a workflow run across a SIGKILL of mailroom dev --data-dir', () => {
  const cliPath = useBuiltCli();
  let cli: CliProcess | undefined;
  let dataDir = '';

  afterEach(async () => {
    if (cli && cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    await cli?.exited;
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('picks the run up where it was: the finished step does not run again, the sleeping one wakes', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailroom-workflow-kill-'));
    const args = ['--header-prefix', 'Upstash', '--issuer', 'Upstash', '--time-scale', '0.001'];
    cli = await startCli(cliPath(), dataDir, 20_000, args);
    const ran: string[] = [];
    // The app follows the dev server to its new port after the restart, as a restarted app with a new .env would.
    let server = cli;
    const handler = (request: Request) =>
      onNext
        .serve<string>(async (context) => {
          await context.run('before', () => void ran.push('before'));
          // 3000 s are 3 s at this time scale: the kill lands while the run sleeps, not while a delivery is in flight.
          await context.sleep('nap', 3000);
          await context.run('after', () => void ran.push('after'));
          return 'woke';
        }, sdkOptions(server))
        .POST(request);
    const appUrl = await listen(webServer(handler));
    const client = () => new WorkflowClient({ baseUrl: server.url, token: server.token });
    const { workflowRunId } = await client().trigger({ url: `${appUrl}/durable`, body: 'x' });
    await waitUntil(() => ran.length === 1, 'the first step', 20_000);
    // Kill while the run sleeps: the sleep published and no delivery of the run in flight (a `next` group).
    // A delivery whose answer the kill beats is made again, at least once, and would run its step again.
    const sleeping = async () => {
      const groups = (await client().logs({ workflowRunId })).runs[0]?.steps ?? [];
      const napPublished = groups.some((group) => group.type !== 'next' && group.steps.some((step) => step.stepName === 'nap'));
      return napPublished && !groups.some((group) => group.type === 'next');
    };
    await waitUntil(sleeping, 'the run to sleep', 20_000);
    // Those outcomes are in the journal once a later publish is answered: the journal keeps its order.
    const qstash = new QStashClient({ baseUrl: server.url, token: server.token });
    await qstash.publish({ url: `${appUrl}/not-before-the-test-ends`, body: 'sync', delay: 86_400 });
    cli.child.kill('SIGKILL');
    expect(await cli.exited).toBe('SIGKILL');
    cli = await startCli(cliPath(), dataDir, 20_000, args);
    server = cli;
    await waitUntil(
      async () => (await client().logs({ workflowRunId })).runs[0]?.workflowState === 'RUN_SUCCESS',
      'the run to end',
      20_000,
    );
    expect(ran).toEqual(['before', 'after']);
    expect((await client().logs({ workflowRunId })).runs[0]).toMatchObject({ workflowRunResponse: '"woke"' });
  });
});
