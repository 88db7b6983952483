import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RateLimitError } from '@mailroom/core';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../src/cli/parse-cli-args';
import { allRoutes } from '../src/http/routes';
import type { Service } from '../src/service';
import { startDestination, type TestDestination } from './helpers/destination';
import { raw } from './helpers/raw';
import { startTestServer, type TestServer } from './helpers/test-server';

// Faults on demand on the running dev server: set from the CLI (`--fault`), the dev API and the
// console (its own test), each scoped and counted, and kept by `--data-dir` across a restart.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const closable of open.splice(0).reverse()) await closable.close();
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<{ t: TestServer; app: TestDestination }> {
  const t = await startTestServer(options);
  const app = await startDestination();
  open.push(app, t);
  return { t, app };
}

const retried = (app: TestDestination, at: string) => app.received(at).map((request) => request.headers['service-retried']);

describe('faults on demand', () => {
  it('delivers twice to the scoped path only, as many times as asked, and counts it', async () => {
    const { t, app } = await start();
    const set = await raw(t, 'POST', '/dev/faults', { body: JSON.stringify({ kind: 'duplicate', to: '/orders', times: 1 }) });
    expect(set.status).toBe(200);
    const { id } = set.body as { id: string };
    const first = await t.messaging.publish({ destination: `${app.url}/orders`, body: 'a' });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === first.messageId);
    await t.messaging.publish({ destination: `${app.url}/orders`, body: 'b' });
    await t.messaging.publish({ destination: `${app.url}/other`, body: 'c' });
    await app.waitFor('/other', 1);
    await t.waitForEvents('delivered', 3);
    expect(app.received('/orders').map((request) => [request.text, request.headers['service-message-id']])).toEqual([
      ['a', first.messageId],
      ['a', first.messageId],
      ['b', expect.any(String)],
    ]);
    expect((await raw(t, 'GET', '/dev/faults')).body).toEqual({
      faults: [expect.objectContaining({ id, kind: 'duplicate', count: 1, times: 1 })],
    });
  });

  it('loses the answer after the app ran, so the service retries it', async () => {
    const { t, app } = await start();
    await raw(t, 'POST', '/dev/faults', { body: JSON.stringify({ kind: 'lose-answer', times: 1 }) });
    const { messageId } = await t.messaging.publish({ destination: `${app.url}/pay`, body: 'x', retries: 2 });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    expect(retried(app, '/pay')).toEqual(['0', '1']);
    const [retry] = t.events.filter((event) => event.type === 'retry');
    expect(retry).toMatchObject({ messageId, error: expect.stringMatching(/the answer was lost/) });
  });

  it('throttles the sender with 503 and Retry-After, then accepts again; reading is never throttled', async () => {
    const { t, app } = await start();
    await raw(t, 'POST', '/dev/faults', { body: JSON.stringify({ kind: 'throttle', status: 503, retryAfter: '5s', times: 1 }) });
    expect((await raw(t, 'GET', '/v2/queues')).status).toBe(200);
    const refused = await raw(t, 'POST', `/v2/publish/${app.url}/x`, { body: 'x' });
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '5']);
    expect(refused.body).toEqual({ error: expect.stringMatching(/^throttled by fault flt_\w+, set on this server/) });
    await expect(t.messaging.publish({ destination: `${app.url}/x`, body: 'x' })).resolves.toHaveProperty('messageId');
    await raw(t, 'POST', '/dev/faults', { body: JSON.stringify({ kind: 'throttle', times: 1 }) });
    await expect(t.messaging.publish({ destination: `${app.url}/x`, body: 'x' })).rejects.toBeInstanceOf(RateLimitError);
  });

  it('signs with a clock an hour behind, so the receiver finds the token expired', async () => {
    const { t, app } = await start();
    await raw(t, 'POST', '/dev/faults', { body: JSON.stringify({ kind: 'skew-clock', by: '-1h', times: 1 }) });
    const { messageId } = await t.messaging.publish({ destination: `${app.url}/signed`, body: 'x' });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    const [request] = app.received('/signed');
    await expect(t.verify(request!.headers['service-signature'], request!.body, `${app.url}/signed`)).rejects.toThrow(/expired/);
  });

  it('throttles every route that creates a message, as the route table marks them, and creates nothing meanwhile', async () => {
    const { t } = await start();
    const sending = allRoutes({} as Service).filter((route) => route.sends);
    // A route that creates messages joins this list by saying so in the route table (`sends: true`).
    expect(sending.map((route) => `${route.method} ${route.path}`).sort()).toEqual(
      [
        'POST /dev/messages/:messageId/resend',
        'POST /dev/schedules/:scheduleId/fire',
        'POST /dev/workflows/runs/:runId/time-out',
        'POST /v2/batch',
        'POST /v2/dlq/retry',
        'POST /v2/enqueue/:queue/*',
        'POST /v2/notify/:eventId',
        'POST /v2/notify/:runId/:eventId',
        'POST /v2/publish/*',
        'POST /v2/schedules/*',
        'POST /v2/wait/:eventId',
        'POST /v2/workflows/dlq/callback/:dlqId',
        'POST /v2/workflows/dlq/restart',
        'POST /v2/workflows/dlq/resume',
      ].sort(),
    );
    await raw(t, 'POST', '/dev/faults', { body: JSON.stringify({ kind: 'throttle', retryAfter: '7s' }) });
    for (const route of sending) {
      const path = route.path.replace(/:[A-Za-z]+/g, 'x').replace(/\*$/, 'http://127.0.0.1:9/x');
      const answer = await raw(t, 'POST', path, { body: route.path === '/v2/batch' ? '[]' : '{}' });
      expect([path, answer.status, answer.headers.get('retry-after')]).toEqual([path, 429, '7']);
    }
    expect(t.events.filter((event) => event.type === 'accepted')).toEqual([]);
  });

  it('refuses a bad rule saying what is wrong, removes one or all, and refuses the read-only token', async () => {
    const { t } = await start();
    for (const [rule, message] of [
      [{ kind: 'explode' }, /unknown fault kind "explode": use one of duplicate, lose-answer, throttle, skew-clock/],
      [{ kind: 'duplicate', times: 0 }, /invalid fault times 0/],
      [{ kind: 'throttle', status: 500 }, /invalid throttle status 500: use 429 or 503/],
      [{ kind: 'throttle', to: '/x' }, /answers the sender, not a destination/],
      [{ kind: 'skew-clock' }, /needs "by"/],
      [{ kind: 'duplicate', to: 'nowhere' }, /give an http:\/\/ or https:\/\/ URL, or a path starting with "\/"/],
      [{ kind: 'duplicate', to: 'javascript:alert(1)' }, /give an http:\/\/ or https:\/\/ URL/],
      [{ kind: 'duplicate', times: 1e7 }, /invalid fault times 10000000: give a whole number from 1 to 1,000,000/],
      [{ kind: 'skew-clock', by: '99999999999h' }, /invalid by "99999999999h": at most a year \(31536000 seconds\)/],
      [{ kind: 'skew-clock', by: 1e12 }, /at most a year/],
      [{ kind: 'skew-clock', by: true }, /invalid by true: give a duration/],
      [{ kind: 'skew-clock', by: [] }, /invalid by \[\]: give a duration/],
      [{ kind: 'throttle', retryAfter: 1e12 }, /invalid retryAfter 1000000000000: at most a day \(86400 seconds\)/],
      [{ kind: 'throttle', retryAfter: '2d' }, /at most a day/],
    ] as const) {
      const answer = await raw(t, 'POST', '/dev/faults', { body: JSON.stringify(rule) });
      expect([answer.status, (answer.body as { error: string }).error]).toEqual([400, expect.stringMatching(message)]);
    }
    expect((await raw(t, 'POST', '/dev/faults', { body: '{nope' })).status).toBe(400);
    expect((await raw(t, 'POST', '/dev/faults', { body: '{"kind":"duplicate"}', token: t.server.readOnlyToken })).status).toBe(403);
    const { id } = (await raw(t, 'POST', '/dev/faults', { body: '{"kind":"duplicate"}' })).body as { id: string };
    await raw(t, 'POST', '/dev/faults', { body: '{"kind":"lose-answer"}' });
    expect((await raw(t, 'DELETE', `/dev/faults/${id}`)).body).toEqual({ removed: 1 });
    expect((await raw(t, 'DELETE', `/dev/faults/${id}`)).status).toBe(404);
    expect((await raw(t, 'DELETE', '/dev/faults')).body).toEqual({ removed: 1 });
    expect((await raw(t, 'GET', '/dev/faults')).body).toEqual({ faults: [] });
  });

  it('keeps rules and their counts in --data-dir across a restart, and a repeated --fault is not set twice', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'mailroom-faults-'));
    open.push({ close: () => rm(dataDir, { recursive: true, force: true }) });
    const faults = [{ kind: 'duplicate' as const, to: '/twice' }];
    const first = await startTestServer({ dataDir, faults });
    const app = await startDestination();
    open.push(app);
    const { messageId } = await first.messaging.publish({ destination: `${app.url}/twice`, body: 'x' });
    await first.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    await first.close();
    const second = await startTestServer({ dataDir, faults });
    open.push(second);
    expect((await raw(second, 'GET', '/dev/faults')).body).toEqual({
      faults: [expect.objectContaining({ kind: 'duplicate', to: '/twice', count: 1 })],
    });
  });
});

describe('--fault', () => {
  it('parses each kind with its options, and refuses a bad rule saying how to write one', () => {
    expect(
      parseCliArgs(
        [
          'dev',
          '--fault',
          'duplicate:to=/orders,times=2',
          '--fault',
          'throttle:status=503,retry-after=5s',
          '--fault',
          'skew-clock:by=-10m',
        ],
        {},
      ),
    ).toMatchObject({
      kind: 'dev',
      options: {
        faults: [
          { kind: 'duplicate', to: '/orders', times: 2 },
          { kind: 'throttle', status: 503, retryAfter: '5s' },
          { kind: 'skew-clock', by: '-10m' },
        ],
      },
    });
    expect(parseCliArgs(['dev', '--fault', 'lose-answer'], {})).toMatchObject({ options: { faults: [{ kind: 'lose-answer' }] } });
    expect(parseCliArgs(['dev', '--fault', 'boom'], {})).toEqual({
      kind: 'error',
      message: expect.stringMatching(/start with one of duplicate/),
    });
    expect(parseCliArgs(['dev', '--fault', 'duplicate:times'], {})).toEqual({
      kind: 'error',
      message: expect.stringMatching(/"times" is not name=value/),
    });
    expect(parseCliArgs(['dev', '--fault', 'duplicate:times=many'], {})).toEqual({
      kind: 'error',
      message: expect.stringMatching(/times must be a whole number/),
    });
  });

  it('refuses to start with a rule the service refuses', async () => {
    await expect(startTestServer({ faults: [{ kind: 'throttle', status: 418 }] })).rejects.toThrow(/faults: invalid throttle status 418/);
  });
});
