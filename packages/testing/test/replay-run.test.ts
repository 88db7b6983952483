import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '@mailroom/core';
import { type DevServer, startDevServer } from '@mailroom/dev-server';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { serve, Client as WorkflowClient } from '@upstash/workflow';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestService, type RunFixture, type TestService } from '../src';

// A workflow run seen under `mailroom dev` becomes a test: exported as a fixture, started again in a
// test service where the app runs its steps while the outside world (a third party's answer, the
// event a wait got, a wait that timed out) answers as recorded.

interface Env {
  QSTASH_URL?: string;
  QSTASH_TOKEN?: string;
  QSTASH_CURRENT_SIGNING_KEY?: string;
  QSTASH_NEXT_SIGNING_KEY?: string;
}

/** The app's workflow: reserve, ask a third party the price, wait for the payment (or not), ship. */
function orderWorkflow(env: Env, thirdParty: string, journal: string[]) {
  return serve<{ orderId: string }>(
    async (context) => {
      const orderId = await context.run('reserve', () => context.requestPayload.orderId);
      const price = await context.call<{ cents: number }>('price', { url: `${thirdParty}/price/${orderId}`, method: 'GET' });
      const paid = await context.waitForEvent('await payment', `paid-${orderId}`, { timeout: '1h' });
      const again = await context.waitForEvent('await a receipt', `receipt-${orderId}`, { timeout: '1h' });
      await context.run('ship', () => {
        journal.push(
          `ship ${orderId}: price ${price.status} ${JSON.stringify(price.body)}, paid ${JSON.stringify(paid.eventData)} ${paid.timeout}, receipt ${again.timeout ? 'timed out' : 'came'}`,
        );
      });
    },
    {
      qstashClient: new QStashClient({ baseUrl: env.QSTASH_URL!, token: env.QSTASH_TOKEN! }),
      receiver: new Receiver({ currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY!, nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY! }),
      disableTelemetry: true,
    },
  ).handler;
}

/** A Node server for a fetch handler, as the app ran under `mailroom dev`. */
function nodeServer(handler: () => (request: Request) => Promise<Response>): http.Server {
  return http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (let index = 0; index < req.rawHeaders.length; index += 2) headers.append(req.rawHeaders[index]!, req.rawHeaders[index + 1]!);
    const { port } = req.socket.address() as AddressInfo;
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const response = await handler()(
      new Request(`http://127.0.0.1:${port}${req.url}`, {
        method: req.method,
        headers,
        ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

const listen = (server: http.Server): Promise<string> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const closeServer = (server: http.Server | undefined): Promise<void> =>
  new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));

let dev: DevServer;
let app: http.Server;
let thirdParty: http.Server;
let thirdPartyBase: string;
const thirdPartyHits: string[] = [];
let priceCents = 1250;
const recordedJournal: string[] = [];
let fixture: RunFixture;

async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await done()); waited += 1) {
    if (waited > 600) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  dev = await startDevServer({ port: 0, log: 'silent', headerPrefix: 'Upstash', issuer: 'Upstash' });
  const env: Env = {
    QSTASH_URL: dev.url,
    QSTASH_TOKEN: dev.token,
    QSTASH_CURRENT_SIGNING_KEY: dev.currentSigningKey,
    QSTASH_NEXT_SIGNING_KEY: dev.nextSigningKey,
  };
  thirdParty = http.createServer((req, res) => {
    thirdPartyHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json', 'x-quote': 'q-1' }).end(JSON.stringify({ cents: priceCents }));
  });
  thirdPartyBase = await listen(thirdParty);
  const handler = orderWorkflow(env, thirdPartyBase, recordedJournal);
  app = nodeServer(() => handler);
  const appBase = await listen(app);

  const workflows = new WorkflowClient({ baseUrl: dev.url, token: dev.token });
  const { workflowRunId } = await workflows.trigger({ url: `${appBase}/api/order-workflow`, body: { orderId: 'o-5' } });
  const auth = { authorization: `Bearer ${dev.token}` };
  const waitsFor = (eventId: string) => async () =>
    ((await (await fetch(`${dev.url}/v2/waiters/${eventId}`, { headers: auth })).json()) as unknown[]).length > 0;
  await until('the run to wait for its payment', waitsFor('paid-o-5'));
  await workflows.notify({ eventId: 'paid-o-5', eventData: { amount: 12.5 } });
  // The receipt never comes: its wait is timed out now, as the console's "Time out now" does.
  await until('the run to wait for its receipt', waitsFor('receipt-o-5'));
  expect((await fetch(`${dev.url}/dev/workflows/runs/${workflowRunId}/time-out`, { method: 'POST', headers: auth })).status).toBe(200);
  await until('the run to ship', async () => recordedJournal.length > 0);

  const answer = await fetch(`${dev.url}/dev/workflows/runs/${workflowRunId}/fixture`, { headers: auth });
  expect(answer.status).toBe(200);
  fixture = (await answer.json()) as RunFixture;
  // The world changes after the recording: the replay must not ask it again.
  priceCents = 9900;
}, 60_000);

afterAll(async () => {
  await dev?.close();
  await Promise.all([closeServer(app), closeServer(thirdParty)]);
});

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe('a workflow run exported from mailroom dev', () => {
  it('holds the trigger, each call with its answer, each event, and the steps', () => {
    expect(recordedJournal).toEqual(['ship o-5: price 200 {"cents":1250}, paid {"amount":12.5} false, receipt timed out']);
    expect(fixture.run).toMatchObject({ url: expect.stringMatching(/\/api\/order-workflow$/), method: 'POST' });
    // The SDK marks its failure calls: a replayed run that fails calls the app back as one.
    expect(fixture.run.failureCallbackHeaders).toMatchObject({ 'upstash-workflow-is-failure': 'true' });
    expect(JSON.parse(Buffer.from(fixture.run.bodyBase64, 'base64').toString())).toEqual({ orderId: 'o-5' });
    expect(fixture.calls).toEqual([
      expect.objectContaining({ url: `${thirdPartyBase}/price/o-5`, method: 'GET', status: 200, body: '{"cents":1250}' }),
    ]);
    expect(fixture.calls[0]?.headers).toMatchObject({ 'X-Quote': 'q-1' });
    expect(fixture.events).toEqual([
      { eventId: 'paid-o-5', dataBase64: Buffer.from('{"amount":12.5}').toString('base64') },
      { eventId: 'receipt-o-5', timedOut: true },
    ]);
    expect(fixture.steps.map((step) => step.stepName)).toEqual(['reserve', 'price', 'await payment', 'await a receipt', 'ship']);
  });

  it('is not for the read-only token, and names a run it does not know', async () => {
    const refused = await fetch(`${dev.url}/dev/workflows/runs/${fixture.run.workflowRunId}/fixture`, {
      headers: { authorization: `Bearer ${dev.readOnlyToken}` },
    });
    expect(refused.status).toBe(403);
    const missing = await fetch(`${dev.url}/dev/workflows/runs/wfr_nope/fixture`, { headers: { authorization: `Bearer ${dev.token}` } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('wfr_nope not found');
  });
});

describe('service.replay(runFixture)', () => {
  it('runs the app again with the outside world as recorded: the same steps, the call answered and the events given as they were', async () => {
    const journal: string[] = [];
    service = await createTestService({
      headerPrefix: 'Upstash',
      createApp: (env) => orderWorkflow(env, thirdPartyBase, journal),
    });
    const hitsBefore = thirdPartyHits.length;
    const replayed = await service.replay(fixture);
    expect(replayed.workflowRunId).toBe(fixture.run.workflowRunId);
    await service.runUntilIdle();

    expect(journal).toEqual(recordedJournal);
    // The third party now quotes 9900: the replay got the recorded answer, without asking it.
    expect(thirdPartyHits.length).toBe(hitsBefore);
    const [run] = await service.runs();
    expect(run?.workflowState).toBe('RUN_SUCCESS');
    const names = (run?.steps ?? []).flatMap((group) => group.steps.map((step) => step.stepName));
    expect(names.filter((name) => name !== 'init')).toEqual(replayed.recorded.map((step) => step.stepName));
    // The call went where the recording says, answered in-process.
    expect(service.attempts(`${thirdPartyBase}/price/o-5`)).toHaveLength(1);
    // The receipt's wait timed out after its hour, as recorded.
    expect(service.now() - run!.workflowRunCreatedAt).toBeGreaterThanOrEqual(3_600_000);
  });

  it('refuses a fixture that is not one, options for a run, and a second replay of one run', async () => {
    service = await createTestService({ headerPrefix: 'Upstash', createApp: (env) => orderWorkflow(env, thirdPartyBase, []) });
    await expect(service.replay({ fixture: 1, run: null } as unknown as RunFixture)).rejects.toThrow(ValidationError);
    await expect(service.replay({ ...fixture, calls: [{ url: 'x' }] } as unknown as RunFixture)).rejects.toThrow(
      /\/dev\/workflows\/runs\/\{id\}\/fixture/,
    );
    await expect((service.replay as (f: unknown, o: unknown) => Promise<unknown>)(fixture, { answers: 'recorded' })).rejects.toThrow(
      /pass no options/,
    );
    await service.replay(fixture);
    await expect(service.replay(fixture)).rejects.toThrow(/replayed in this service already/);
  });
});
