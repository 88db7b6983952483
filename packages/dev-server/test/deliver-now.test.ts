import { ApiError, NotFoundError } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { always, failTimes } from './helpers/destination';
import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

// "Deliver now": the service's retry now (`POST /v2/messages/{id}/retry`, `messages.runNow`) for a
// message waiting out a delay or a retry's backoff, and the dev server's own "fire now" for a
// schedule. Real time (time scale 1): without the release, each wait here is an hour or a year.

useTestServer({ timeScale: 1 });

const HOUR = 3_600_000;

describe('retry now (POST /v2/messages/{id}/retry)', () => {
  it('delivers a message delayed by an hour at once, as its first attempt, and then it is no longer waiting', async () => {
    const { messageId } = await t.messaging.publish({ destination: `${destination.url}/later`, body: 'x', delay: '1h' });
    expect(destination.received('/later')).toHaveLength(0);
    await t.messaging.messages.runNow(messageId);
    const [request] = await destination.waitFor('/later', 1);
    expect(request!.headers['service-retried']).toBe('0');
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    await expect(t.messaging.messages.runNow(messageId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("skips a retry's backoff without adding an attempt: the retry count goes on where it was", async () => {
    destination.script('/flaky', failTimes(1));
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/flaky`,
      body: 'x',
      retries: 1,
      retryDelay: String(HOUR),
    });
    const [retry] = await t.waitForEvents('retry', 1, (event) => event.messageId === messageId);
    expect(retry!.delayMs).toBe(HOUR);
    expect((await t.messaging.messages.get(messageId)).messageId).toBe(messageId);
    await t.messaging.messages.runNow(messageId);
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    expect(destination.received('/flaky').map((request) => request.headers['service-retried'])).toEqual(['0', '1']);
  });

  it('sends a message on its last retry to the DLQ when the released attempt fails too', async () => {
    destination.script('/down', always(500));
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/down`,
      body: 'x',
      retries: 1,
      retryDelay: String(HOUR),
    });
    await t.waitForEvents('retry', 1, (event) => event.messageId === messageId);
    await t.messaging.messages.runNow(messageId);
    await t.waitForEvents('dlq', 1, (event) => event.messageId === messageId);
    expect((await t.messaging.dlq.list()).messages.map((entry) => [entry.messageId, entry.responseStatus])).toEqual([[messageId, 500]]);
    expect(destination.received('/down').map((request) => request.headers['service-retried'])).toEqual(['0', '1']);
  });

  it('refuses a queued message with 400 and says why, as the service does', async () => {
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/q`, body: 'x', delay: '1h' });
    const error = await t.messaging.messages.runNow(messageId).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as Error).message).toMatch(/in queue q, and a queued message cannot be released early/);
    expect(destination.received('/q')).toHaveLength(0);
  });

  it('answers 404 for an unknown id and refuses the read-only token', async () => {
    const unknown = await raw(t, 'POST', '/v2/messages/msg_unknown/retry');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.stringMatching(/msg_unknown is not pending/) });
    const { messageId } = await t.messaging.publish({ destination: `${destination.url}/later`, body: 'x', delay: '1h' });
    expect((await raw(t, 'POST', `/v2/messages/${messageId}/retry`, { token: t.server.readOnlyToken })).status).toBe(403);
    expect(destination.received('/later')).toHaveLength(0);
  });
});

describe('fire now (POST /dev/schedules/{id}/fire)', () => {
  it('fires a yearly schedule once now, and its cron keeps the next firing it had', async () => {
    const { scheduleId } = await t.messaging.schedules.create({ destination: `${destination.url}/yearly`, cron: '0 0 1 1 *', body: 'y' });
    const before = (await t.messaging.schedules.get(scheduleId)).nextScheduleTime;
    expect((await raw(t, 'POST', `/dev/schedules/${scheduleId}/fire`)).status).toBe(200);
    const [request] = await destination.waitFor('/yearly', 1);
    expect(request!.headers['service-schedule-id']).toBe(scheduleId);
    expect(request!.text).toBe('y');
    expect((await t.messaging.schedules.get(scheduleId)).nextScheduleTime).toBe(before);
    const missing = await raw(t, 'POST', '/dev/schedules/scd_missing/fire');
    expect([missing.status, missing.body]).toEqual([404, { error: 'schedule scd_missing not found' }]);
  });
});
