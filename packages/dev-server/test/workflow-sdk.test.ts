import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient, serve, type RouteFunction, type WorkflowServeOptions } from '@upstash/workflow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server';
import { waitUntil } from './helpers/wait';

// The vendor's Workflow SDK, unchanged, against `mailroom dev`: its generic `serve` on a plain Node
// server, triggered with its own client. The dev server must hand every step the run's history.

let dev: TestServer;
let app: Server;
let appUrl: string;
let routes: Map<string, (request: Request) => Promise<Response>>;

beforeEach(async () => {
  dev = await startTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash', timeScale: 0.001 });
  routes = new Map();
  app = createServer((req, res) => void forward(req, res));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});

afterEach(async () => {
  app.closeAllConnections();
  await new Promise((resolve) => app.close(resolve));
  await dev.close();
});

/** Node request -> Web Request -> the SDK's handler -> Node response. */
async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const handler = routes.get(req.url?.split('?')[0] ?? '');
  if (!handler) {
    res.writeHead(404).end();
    return;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const body = Buffer.concat(chunks);
  const response = await handler(new Request(`${appUrl}${req.url}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

function workflow<T>(
  path: string,
  route: RouteFunction<T, unknown>,
  options: { failureFunction?: WorkflowServeOptions<T>['failureFunction'] } = {},
): string {
  const { handler } = serve<T>(route, {
    qstashClient: new QStashClient({ baseUrl: dev.server.url, token: dev.server.token }),
    receiver: new Receiver({ currentSigningKey: dev.server.currentSigningKey, nextSigningKey: dev.server.nextSigningKey }),
    url: `${appUrl}${path}`,
    disableTelemetry: true,
    ...(options.failureFunction ? { failureFunction: options.failureFunction } : {}),
  });
  routes.set(path, handler);
  return `${appUrl}${path}`;
}

const client = () => new WorkflowClient({ baseUrl: dev.server.url, token: dev.server.token });

/** Waits for the dev server to say the run reached `state`. */
const runEnded = (runId: string, state: string) =>
  dev.waitForEvents('workflow-run', 1, (event) => event.runId === runId && event.state === state, 20_000);

describe('the Workflow SDK on mailroom dev', () => {
  it('runs two context.run steps in order, each given the output of the one before, and ends the run', async () => {
    const seen: unknown[] = [];
    const url = workflow<{ orderId: string }>('/order', async (context) => {
      const reserved = await context.run('reserve', () => ({ reserved: context.requestPayload.orderId }));
      const charged = await context.run('charge', () => ({ ...reserved, charged: true }));
      seen.push(charged);
      return 'done';
    });
    const { workflowRunId } = await client().trigger({ url, body: { orderId: 'o-1' } });
    await runEnded(workflowRunId, 'RUN_SUCCESS');
    expect(seen).toEqual([{ reserved: 'o-1', charged: true }]);
    // client.logs: the run, its steps in order with their outputs, and what the route returned.
    const [log] = (await client().logs({ workflowRunId })).runs;
    expect(log).toMatchObject({ workflowRunId, workflowUrl: url, workflowState: 'RUN_SUCCESS', workflowRunResponse: '"done"' });
    expect(log!.steps.map((group) => group.steps.map((step) => [step.stepName, step.state]))).toEqual([
      [['init', 'STEP_SUCCESS']],
      [['reserve', 'STEP_SUCCESS']],
      [['charge', 'STEP_SUCCESS']],
    ]);
    // No delivery of the run failed: every step was given its history.
    expect(dev.events.filter((event) => event.type === 'retry' || event.type === 'failed')).toEqual([]);
    // The management statistics count one run and its three messages (trigger and two steps).
    const [user] = await dev.management.users();
    const stats = await dev.management.stats(user!.id);
    const today = stats.daily_requests.reduce(
      (sums, point) => ({
        runs: sums.runs + point.workflow_run,
        messages: sums.messages + point.workflow_message,
      }),
      { runs: 0, messages: 0 },
    );
    expect(today).toEqual({ runs: 1, messages: 3 });
  });

  it('hands each step its history in the delivery while it fits in a message, and the SDK fetches a larger one itself (LazyFetch)', async () => {
    const half = 'x'.repeat(450_000);
    const totals: number[] = [];
    const url = workflow('/large', async (context) => {
      const first = await context.run('first', () => half);
      const second = await context.run('second', () => half);
      totals.push(await context.run('total', () => first.length + second.length));
    });
    const handler = routes.get('/large')!;
    const delivered: number[] = [];
    routes.set('/large', async (request) => {
      delivered.push((await request.clone().arrayBuffer()).byteLength);
      return handler(request);
    });
    const { workflowRunId } = await client().trigger({ url, body: 'go' });
    await runEnded(workflowRunId, 'RUN_SUCCESS');
    expect(totals).toEqual([900_000]);
    // The free plan's 1 MiB: the history holds the trigger, then one half, then two (over 1 MiB in base64).
    expect(delivered.map((bytes) => bytes > 0)).toEqual([true, true, false, false]);
  });

  it('runs a failing later step into the failure function, with the run id, and keeps the run in the workflow DLQ', async () => {
    const failures: Array<{ runId: string; status: number }> = [];
    const url = workflow<string>(
      '/fails',
      async (context) => {
        await context.run('first', () => 'ok');
        await context.run('second', () => {
          throw new Error('the second step always fails');
        });
      },
      { failureFunction: async ({ context, failStatus }) => void failures.push({ runId: context.workflowRunId, status: failStatus }) },
    );
    const { workflowRunId } = await client().trigger({ url, body: 'x', retries: 1 });
    await runEnded(workflowRunId, 'RUN_FAILED');
    await waitUntil(() => failures.length > 0, 'the failure function', 20_000);
    expect(failures).toEqual([{ runId: workflowRunId, status: 500 }]);
    const [log] = (await client().logs({ workflowRunId })).runs;
    expect(log).toMatchObject({ workflowState: 'RUN_FAILED', failureFunction: { failStatus: 500 } });
    // The step that threw is the one the failing delivery ran: named as the SDK answered, with each attempt's error.
    const next = log!.steps.at(-1)! as unknown as { type: string; steps: Array<Record<string, unknown>> };
    expect(next.type).toBe('next');
    expect(next.steps[0]).toMatchObject({ stepName: 'second', state: 'STEP_FAILED', retries: 1 });
    const errors = next.steps[0]!.errors as Array<{ status: number; body: string }>;
    expect(errors.map((error) => error.status)).toEqual([500, 500]);
    expect(JSON.parse(errors[0]!.body)).toMatchObject({ message: 'the second step always fails' });
    expect(log!.steps.slice(0, -1).flatMap((group) => group.steps.map((step) => [step.stepName, step.state]))).toEqual([
      ['init', 'STEP_SUCCESS'],
      ['first', 'STEP_SUCCESS'],
    ]);
    // As the service writes them: an HTTP failure as its status line, the init step without a step
    // id, a retryDelay on a step that can be retried, the failure function named by the workflow's URL.
    expect((next.steps[0]!.errors as Array<{ error: string }>).map((error) => error.error)).toEqual([
      '500 Internal Server Error',
      '500 Internal Server Error',
    ]);
    const init = log!.steps[0]!.steps[0] as unknown as Record<string, unknown>;
    expect(init).not.toHaveProperty('stepId');
    expect(init.retryDelay).toEqual(expect.any(String));
    expect(next.steps[0]!.retryDelay).toEqual(expect.any(String));
    expect(log).toMatchObject({ failureFunction: { url, messageId: expect.any(String) } });
    const dlq = await dev.messaging.workflowDlq.list();
    expect(dlq.messages.map((entry) => entry.workflowRunId)).toEqual([workflowRunId]);
    // The trigger's retries applied to the later step too: 1 + 1 attempts of it.
    const failed = dev.events.find((event) => event.type === 'failed' && event.retried === 1);
    expect(failed).toBeDefined();
  });

  it('runs parallel steps side by side and a sleepUntil, then the step after them', async () => {
    const seen: unknown[] = [];
    const url = workflow<string>('/parallel', async (context) => {
      const [a, b] = await Promise.all([context.run('a', () => 'A'), context.run('b', () => 'B')]);
      await context.sleepUntil('until', Math.floor(Date.now() / 1000) + 1);
      await context.run('after', () => void seen.push([a, b]));
    });
    const { workflowRunId } = await client().trigger({ url, body: 'x' });
    await runEnded(workflowRunId, 'RUN_SUCCESS');
    expect(seen).toEqual([['A', 'B']]);
    expect(dev.events.filter((event) => event.type === 'retry' || event.type === 'failed')).toEqual([]);
  });

  it('resumes a sleeping run after a restart on the same --data-dir, history and all', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-workflow-'));
    try {
      await dev.close();
      dev = await startTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash', timeScale: 0.001, dataDir });
      const port = dev.server.port;
      const seen: unknown[] = [];
      const url = workflow<string>('/durable', async (context) => {
        const first = await context.run('first', () => 'kept');
        // 3000 s are 3 s at this time scale: the close lands while the run sleeps, not while the step
        // after it is in flight (which at-least-once delivery may rightly run again after the restart).
        await context.sleep('nap', 3000);
        await context.run('after', () => void seen.push(first));
      });
      const { workflowRunId } = await client().trigger({ url, body: 'x' });
      await dev.waitForEvents('accepted', 1, (event) => event.delayMs >= 3_000_000, 20_000);
      await dev.close();
      // Same port, so the SDK's client in the app reaches the new server.
      dev = await startTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash', timeScale: 0.001, dataDir, port });
      await runEnded(workflowRunId, 'RUN_SUCCESS');
      expect(seen).toEqual(['kept']);
    } finally {
      // Closed (and compacted) before its directory goes.
      await dev.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('waits for an event released by notify, hands on its data, and times out a wait nobody notifies', async () => {
    const seen: unknown[] = [];
    const url = workflow<string>('/waits', async (context) => {
      // At this time scale a day lasts 86 s, far longer than the notify takes; the 2 s wait below lasts 2 ms.
      const { eventData, timeout } = await context.waitForEvent('approval', `approve-${context.workflowRunId}`, { timeout: '1d' });
      const late = await context.waitForEvent('never', `never-${context.workflowRunId}`, { timeout: 2 });
      await context.run('record', () => void seen.push({ eventData, timeout, lateTimedOut: late.timeout }));
    });
    const { workflowRunId } = await client().trigger({ url, body: 'x' });
    const eventId = `approve-${workflowRunId}`;
    for (let polls = 0; (await client().getWaiters({ eventId })).length === 0; polls += 1) {
      if (polls > 400) throw new Error('the run never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const notified = await client().notify({ eventId, eventData: { approved: true } });
    expect(notified).toHaveLength(1);
    await runEnded(workflowRunId, 'RUN_SUCCESS');
    expect(seen).toEqual([{ eventData: { approved: true }, timeout: false, lateTimedOut: true }]);
    expect(await client().getWaiters({ eventId })).toEqual([]);
  });

  it('resumes a failed run from its failed step, restarts one as a new run, and deletes an entry (client.dlq)', async () => {
    let broken = true;
    const firstSteps: string[] = [];
    const url = workflow<string>('/flaky', async (context) => {
      await context.run('first', () => void firstSteps.push(context.workflowRunId));
      await context.run('second', () => {
        if (broken) throw new Error('the stock service is down');
        return 'ok';
      });
    });
    const runs: string[] = [];
    for (const body of ['a', 'b', 'c']) {
      const { workflowRunId } = await client().trigger({ url, body, retries: 0 });
      await runEnded(workflowRunId, 'RUN_FAILED');
      runs.push(workflowRunId);
    }
    const [a, b, c] = runs as [string, string, string];
    const entries = (await client().dlq.list()).messages;
    const dlqOf = (runId: string) => entries.find((entry) => entry.workflowRunId === runId)!.dlqId;
    broken = false;

    // As on the service, resume starts a new run that carries the failed run's history on.
    const resumed = await client().dlq.resume({ dlqId: dlqOf(a) });
    expect(resumed.workflowRunId).not.toBe(a);
    await runEnded(resumed.workflowRunId, 'RUN_SUCCESS');
    // From the failed step: the first one did not run again, under either id.
    expect(firstSteps.filter((runId) => runId === a)).toHaveLength(1);
    expect(firstSteps).not.toContain(resumed.workflowRunId);
    // The failed run keeps its failure and its history; the new one says which run it resumes.
    const [failedLog] = (await client().logs({ workflowRunId: a })).runs;
    expect(failedLog).toMatchObject({ workflowState: 'RUN_FAILED' });
    const [resumedLog] = (await client().logs({ workflowRunId: resumed.workflowRunId })).runs;
    expect(resumedLog).toMatchObject({ workflowState: 'RUN_SUCCESS', origin: { workflowRunId: a, action: 'resume' } });
    expect(resumedLog!.steps.flatMap((group) => group.steps.map((step) => step.stepName))).toEqual(['init', 'first', 'second']);

    const restarted = await client().dlq.restart({ dlqId: dlqOf(b) });
    expect(restarted.workflowRunId).not.toBe(b);
    await runEnded(restarted.workflowRunId, 'RUN_SUCCESS');
    expect(firstSteps).toContain(restarted.workflowRunId);
    expect((await client().logs({ workflowRunId: restarted.workflowRunId })).runs[0]).toMatchObject({
      origin: { workflowRunId: b, action: 'restart' },
    });

    await client().dlq.delete(dlqOf(c));
    expect((await client().dlq.list()).messages).toEqual([]);

    // Each failed run keeps what happened to it: its step dead-lettered first, the SDK's failure
    // function called (it has one by default; its answer may come before or after what follows), and
    // what was done with it.
    const timeline = async (runId: string) =>
      ((await client().logs({ workflowRunId: runId })).runs[0] as unknown as { timeline: Array<Record<string, unknown>> }).timeline;
    const deadLettered = {
      kind: 'dead-lettered',
      messageId: expect.stringMatching(/^msg_/),
      detail: 'answered 500',
      at: expect.any(Number),
    };
    const failureFunction = { kind: 'failure-function', detail: 'answered 200', at: expect.any(Number) };
    const told = async (runId: string, then: Record<string, unknown>) => {
      await waitUntil(async () => (await timeline(runId)).length === 3, `run ${runId}'s timeline to hold 3 events`);
      const events = await timeline(runId);
      expect(events[0]).toEqual(deadLettered);
      expect(events.slice(1)).toEqual(expect.arrayContaining([failureFunction, then]));
    };
    await told(a, {
      kind: 'resumed',
      workflowRunId: resumed.workflowRunId,
      messageId: expect.stringMatching(/^msg_/),
      at: expect.any(Number),
    });
    await told(b, { kind: 'restarted', workflowRunId: restarted.workflowRunId, at: expect.any(Number) });
    await told(c, { kind: 'dlq-deleted', at: expect.any(Number) });
    await expect(timeline(resumed.workflowRunId)).resolves.toEqual([{ kind: 'ended', detail: 'RUN_SUCCESS', at: expect.any(Number) }]);
  });

  it('runs a failure function again on request after it failed (retryFailureFunction)', async () => {
    let calls = 0;
    const url = workflow<string>(
      '/failure-retry',
      async (context) => {
        await context.run('only', () => {
          throw new Error('always');
        });
      },
      {
        failureFunction: async () => {
          calls += 1;
          if (calls === 1) throw new Error('the alerting service is down too');
        },
      },
    );
    const { workflowRunId } = await client().trigger({ url, body: 'x', retries: 0 });
    await runEnded(workflowRunId, 'RUN_FAILED');
    const [entry] = (await client().dlq.list()).messages;
    await dev.waitForEvents(
      'failure-callback-state',
      1,
      (event) => event.dlqId === entry!.dlqId && event.state === 'CALLBACK_FAIL',
      20_000,
    );
    await client().dlq.retryFailureFunction({ dlqId: entry!.dlqId });
    await dev.waitForEvents(
      'failure-callback-state',
      1,
      (event) => event.dlqId === entry!.dlqId && event.state === 'CALLBACK_SUCCESS',
      20_000,
    );
    expect(calls).toBe(2);
  });

  it('calls a third party with context.call and hands its answer to the next step', async () => {
    routes.set('/third-party', async (request) =>
      Response.json({ echoed: await request.json() }, { status: 201, headers: { 'x-answer': 'yes' } }),
    );
    const seen: unknown[] = [];
    const url = workflow<string>('/calls', async (context) => {
      const answer = await context.call('ask', { url: `${appUrl}/third-party`, method: 'POST', body: JSON.stringify({ question: 42 }) });
      await context.run('record', () => void seen.push({ status: answer.status, body: answer.body }));
    });
    const { workflowRunId } = await client().trigger({ url, body: 'x' });
    await runEnded(workflowRunId, 'RUN_SUCCESS');
    expect(seen).toEqual([{ status: 201, body: { echoed: { question: 42 } } }]);
  });

  it("is driven by Mailroom's own client too: logs, waiters, notify, cancel and the workflow DLQ", async () => {
    let broken = true;
    const url = workflow<string>('/ours', async (context) => {
      const { eventData } = await context.waitForEvent('go', `go-${context.workflowRunId}`, { timeout: '1d' });
      await context.run('use', () => {
        if (broken) throw new Error('not yet');
        return eventData;
      });
    });
    const { workflowRunId } = await client().trigger({ url, body: 'x', retries: 0 });
    const eventId = `go-${workflowRunId}`;
    for (let polls = 0; (await dev.messaging.workflows.waiters(eventId)).length === 0; polls += 1) {
      if (polls > 400) throw new Error('the run never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await dev.messaging.workflows.logs({ workflowRunId })).runs[0]?.workflowState).toBe('RUN_STARTED');
    const notified = await dev.messaging.workflows.notify(eventId, { go: true });
    expect(notified).toHaveLength(1);
    await runEnded(workflowRunId, 'RUN_FAILED');
    const [entry] = (await dev.messaging.workflowDlq.list()).messages;
    broken = false;
    const [resumed] = await dev.messaging.workflowDlq.resume(entry!.dlqId);
    expect(resumed).toEqual({ workflowRunId: expect.stringMatching(/^wfr_/), workflowCreatedAt: expect.any(Number) });
    expect(resumed!.workflowRunId).not.toBe(workflowRunId);
    await runEnded(resumed!.workflowRunId, 'RUN_SUCCESS');
    const [log] = (await dev.messaging.workflows.logs({ workflowRunId: resumed!.workflowRunId })).runs;
    // The route returned nothing: the SDK ends the run with an empty body.
    expect(log).toMatchObject({ workflowState: 'RUN_SUCCESS', workflowRunResponse: '' });

    const sleeper = workflow<string>('/ours-sleeps', async (context) => {
      await context.sleep('nap', 3600);
    });
    const second = await client().trigger({ url: sleeper, body: 'y' });
    await dev.waitForEvents('accepted', 1, (event) => event.delayMs >= 3_600_000, 20_000);
    expect(await dev.messaging.workflows.cancel(second.workflowRunId)).toEqual({ cancelled: 1 });
    await runEnded(second.workflowRunId, 'RUN_CANCELED');
  });

  it('cancels a sleeping run: no later step runs', async () => {
    const after: string[] = [];
    const url = workflow<string>('/sleepy', async (context) => {
      await context.run('before', () => 'ok');
      await context.sleep('nap', 3600);
      await context.run('after', () => void after.push('ran'));
    });
    const { workflowRunId } = await client().trigger({ url, body: 'x' });
    // The sleep is a step published an hour ahead.
    await dev.waitForEvents('accepted', 1, (event) => event.delayMs >= 3_600_000, 20_000);
    expect((await client().logs({ workflowRunId })).runs[0]).toMatchObject({ workflowState: 'RUN_STARTED' });
    await client().cancel(workflowRunId);
    await runEnded(workflowRunId, 'RUN_CANCELED');
    expect((await dev.messaging.logs.list({ state: 'CANCELED' })).events).toHaveLength(1);
    expect((await client().logs({ workflowRunId })).runs[0]).toMatchObject({ workflowState: 'RUN_CANCELED' });
    // Every state, filtered: this run is the only cancelled one.
    expect((await client().logs({ state: 'RUN_CANCELED' } as never)).runs.map((run) => run.workflowRunId)).toEqual([workflowRunId]);
    expect(after).toEqual([]);
  });
});
