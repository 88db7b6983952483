import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier, NotFoundError } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { always, failTimes } from './helpers/destination';
import { destination, startTestServer, t, useTestServer } from './helpers/test-server';
import { waitUntil } from './helpers/wait';

// Every group beyond enqueue, end to end: Mailroom's client against the dev server, real deliveries
// to a real destination. The time scale (0.001) makes a cron minute 60 ms.

useTestServer({ plan: 'paid' });

async function states(messageId: string): Promise<string[]> {
  const page = await t.messaging.logs.list({ messageId });
  return page.events.map((event) => event.state).reverse();
}

describe('publish, batch and the logs', () => {
  it('publishes without a queue and logs every state change of the message', async () => {
    const result = await t.messaging.publishJSON({ destination: `${destination.url}/p`, body: { a: 1 }, label: ['x', 'y'] });
    await destination.waitFor('/p', 1);
    await waitUntil(() => t.server.currentSigningKey !== '' && t.events.some((e) => e.type === 'delivered'), 'delivered');
    expect(await states(result.messageId)).toEqual(['CREATED', 'ACTIVE', 'DELIVERED']);
    const [event] = (await t.messaging.logs.list({ messageId: result.messageId, state: 'DELIVERED' })).events;
    expect(event).toMatchObject({ url: `${destination.url}/p`, label: 'x', labels: ['x', 'y'], responseStatus: 200 });
    expect((await t.messaging.logs.list({ label: 'y' })).events.length).toBe(3);
    expect((await t.messaging.logs.list({ label: 'z' })).events).toEqual([]);
  });

  it('logs ERROR and RETRY with the next delivery time, then FAILED', async () => {
    destination.script('/f', always(500));
    const { messageId } = await t.messaging.publish({ destination: `${destination.url}/f`, body: 'x', retries: 1 });
    await t.waitForEvents('dlq', 1);
    expect(await states(messageId)).toEqual(['CREATED', 'ACTIVE', 'ERROR', 'RETRY', 'ACTIVE', 'ERROR', 'FAILED']);
    const retry = (await t.messaging.logs.list({ messageId, state: 'RETRY' })).events[0];
    expect(retry?.nextDeliveryTime).toBeGreaterThan(0);
  });

  it('pages the logs with a cursor, newest first', async () => {
    for (let index = 0; index < 3; index += 1) await t.messaging.publish({ destination: `${destination.url}/page`, body: String(index) });
    await t.waitForEvents('delivered', 3);
    const seen: string[] = [];
    for await (const event of t.messaging.logs.iterate({ count: 2 })) seen.push(`${event.messageId} ${event.state}`);
    expect(new Set(seen).size).toBe(9);
    // Newest first: each message's DELIVERED comes before its CREATED.
    for (const line of seen.filter((entry) => entry.endsWith('DELIVERED'))) {
      const id = line.split(' ')[0];
      expect(seen.indexOf(line)).toBeLessThan(seen.indexOf(`${id} CREATED`));
    }
  });

  it('lists the logs strictly newest first, also when attempts overlap (an ACTIVE entry is written when its attempt ends)', async () => {
    destination.script('/slow', () => ({ status: 200, delayMs: 150 }));
    for (let index = 0; index < 3; index += 1) await t.messaging.publish({ destination: `${destination.url}/slow`, body: String(index) });
    await destination.waitFor('/slow', 1);
    for (let index = 0; index < 3; index += 1) await t.messaging.publish({ destination: `${destination.url}/fast`, body: String(index) });
    await t.waitForEvents('delivered', 6);
    const times: number[] = [];
    for await (const event of t.messaging.logs.iterate({ count: 4 })) times.push(event.time);
    expect(times).toHaveLength(18);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('takes a batch item whose body is a JSON value rather than a string as that JSON text', async () => {
    const answer = await fetch(`${t.server.url}/v2/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.server.token}` },
      body: JSON.stringify([{ destination: `${destination.url}/json-body`, body: { question: 42 } }]),
    });
    expect(answer.status).toBe(200);
    const [received] = await destination.waitFor('/json-body', 1);
    expect(received!.text).toBe('{"question":42}');
  });

  it('sends a batch to a URL, a queue and a URL group, answering one result per item', async () => {
    await t.messaging.urlGroups.addEndpoints('fan', [{ url: `${destination.url}/g1` }, { url: `${destination.url}/g2` }]);
    const results = await t.messaging.batchJSON([
      { destination: `${destination.url}/b1`, body: { n: 1 } },
      { destination: `${destination.url}/b2`, queue: 'bq', body: { n: 2 }, retries: 0 },
      { destination: 'fan', body: { n: 3 } },
    ]);
    expect(results).toHaveLength(3);
    expect(Array.isArray(results[2]) && results[2].length).toBe(2);
    const [b1] = await destination.waitFor('/b1', 1);
    expect(b1?.headers['content-type']).toBe('application/json');
    await destination.waitFor('/b2', 1);
    await destination.waitFor('/g1', 1);
    expect((await t.messaging.queues.get('bq')).name).toBe('bq');
  });

  it('refuses a batch with one bad item and accepts none of it', async () => {
    const response = await fetch(`${t.server.url}/v2/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify([
        { destination: `${destination.url}/ok`, headers: {}, body: 'a' },
        { destination: `${destination.url}/ok`, headers: { 'Service-Retries': 'many' }, body: 'b' },
      ]),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/Service-Retries/);
    expect((await t.messaging.logs.list()).events).toEqual([]);
  });
});

describe('schedules', () => {
  it('fires on its cron; each firing is a normal message carrying the schedule id', async () => {
    const { scheduleId } = await t.messaging.schedules.createJSON({
      destination: `${destination.url}/cron`,
      cron: '* * * * *',
      body: { tick: true },
      retries: 0,
    });
    const requests = await destination.waitFor('/cron', 2, 5000);
    expect(requests[0]?.headers['service-schedule-id']).toBe(scheduleId);
    expect(requests[0]?.text).toBe('{"tick":true}');
    const schedule = await t.messaging.schedules.get(scheduleId);
    expect(schedule).toMatchObject({ scheduleId, cron: '* * * * *', destination: `${destination.url}/cron`, isPaused: false, retries: 0 });
    expect(schedule.nextScheduleTime).toBeGreaterThan(schedule.lastScheduleTime ?? 0);
    expect((await t.messaging.logs.list({ scheduleId })).events.length).toBeGreaterThan(0);
    await t.messaging.schedules.delete(scheduleId);
    await expect(t.messaging.schedules.get(scheduleId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('shows a schedule as the service does: its headers as delivered, and no body field when it has none', async () => {
    const { scheduleId } = await t.messaging.schedules.create({
      destination: `${destination.url}/plain`,
      cron: '0 0 1 1 *',
      retries: 2,
      headers: { 'X-Tenant': 'acme' },
      label: ['a', 'b'],
    });
    const raw = (await (
      await fetch(`${t.server.url}/v2/schedules/${scheduleId}`, { headers: { authorization: `Bearer ${t.server.token}` } })
    ).json()) as Record<string, unknown>;
    expect(raw).not.toHaveProperty('body');
    expect(raw.header).toEqual({ 'Content-Type': ['text/plain;charset=UTF-8'], 'X-Tenant': ['acme'] });
    expect(raw).toMatchObject({ retries: 2, label: 'a', labels: ['a', 'b'] });
  });

  it('does not fire while paused, and fires again after resume', async () => {
    const { scheduleId } = await t.messaging.schedules.create({
      destination: `${destination.url}/paused`,
      cron: '* * * * *',
      scheduleId: 'nightly',
    });
    expect(scheduleId).toBe('nightly');
    await t.messaging.schedules.pause('nightly');
    // A firing that started before the pause may still land: count after it has.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = destination.received('/paused').length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(destination.received('/paused').length).toBe(before);
    expect((await t.messaging.schedules.get('nightly')).isPaused).toBe(true);
    await t.messaging.schedules.resume('nightly');
    await destination.waitFor('/paused', before + 1, 5000);
  });

  it('replaces a schedule created again with the same id, and respects CRON_TZ', async () => {
    // Real time (scale 1): the next firing shown is then on the cron's own clock.
    const real = await startTestServer({ timeScale: 1 });
    try {
      await real.messaging.schedules.create({ destination: `${destination.url}/a`, cron: '0 0 1 1 *', scheduleId: 'same' });
      await real.messaging.schedules.create({
        destination: `${destination.url}/b`,
        cron: 'CRON_TZ=Asia/Tokyo 0 9 * * *',
        scheduleId: 'same',
      });
      const list = await real.messaging.schedules.list();
      expect(list.map((s) => [s.scheduleId, s.destination])).toEqual([['same', `${destination.url}/b`]]);
      const next = new Date(list[0]!.nextScheduleTime!);
      expect(next.getUTCHours()).toBe(0); // 09:00 in Tokyo
    } finally {
      await real.close();
    }
  });

  it('shows a sped-up schedule on the one clock it fires by: its next firing is when its message is created', async () => {
    const scaled = await startTestServer({ timeScale: 0.02 });
    try {
      const before = Date.now();
      const { scheduleId } = await scaled.messaging.schedules.create({ destination: `${destination.url}/tick`, cron: '* * * * *' });
      const shown = (await scaled.messaging.schedules.get(scheduleId)).nextScheduleTime!;
      // A cron minute lasts 1.2 s at this scale, so the next firing is at most that far away, in real time.
      expect(shown).toBeGreaterThanOrEqual(before);
      expect(shown).toBeLessThanOrEqual(Date.now() + 1200);
      // On a loaded machine a firing may come between creating and reading: the one shown is awaited.
      const firings = async () => (await scaled.messaging.logs.list({ state: 'CREATED' })).events.map((event) => event.time);
      await waitUntil(async () => (await firings()).some((time) => time >= shown), 'the firing at the time shown');
      const created = Math.min(...(await firings()).filter((time) => time >= shown));
      // On the same clock: created at the time shown, give or take a loaded machine's stall (a time
      // on the service's sped-up clock would be minutes off).
      expect(created - shown).toBeLessThan(6000);
      expect((await scaled.messaging.schedules.get(scheduleId)).lastScheduleTime).toBeGreaterThanOrEqual(shown);
    } finally {
      await scaled.close();
    }
  });

  it('refuses a bad cron at the server too: out of range, or never firing', async () => {
    for (const [cron, error] of [
      ['61 * * * *', /minute 61 is out of range/],
      ['0 0 32 * *', /day of month 32 is out of range/],
      ['0 0 * 13 *', /month 13 is out of range/],
      ['0 0 30 2 *', /never fires/],
      ['* * * * * *', /expected five fields/],
    ] as const) {
      const response = await fetch(`${t.server.url}/v2/schedules/${destination.url}/x`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.server.token}`, 'Service-Cron': cron },
      });
      expect([cron, response.status]).toEqual([cron, 400]);
      expect(((await response.json()) as { error: string }).error).toMatch(error);
    }
    expect(await t.messaging.schedules.list()).toEqual([]);
  });
});

describe('queues', () => {
  it('delivers `parallelism` messages of a queue at once', async () => {
    // Every answer is held until three requests are in flight at once: a server that sent fewer in
    // parallel would never get its answers, one that sent more would show a peak above three.
    let current = 0;
    let peak = 0;
    let held: Array<() => void> = [];
    destination.script('/par', () => {
      current += 1;
      peak = Math.max(peak, current);
      const answered = new Promise<void>((resolve) => held.push(resolve)).then(() => {
        current -= 1;
      });
      if (current === 3) {
        for (const release of held) release();
        held = [];
      }
      return { until: answered };
    });
    await t.messaging.queues.upsert({ name: 'wide', parallelism: 3 });
    for (let index = 0; index < 6; index += 1)
      await t.messaging.enqueue({ queue: 'wide', destination: `${destination.url}/par`, body: String(index) });
    await destination.waitFor('/par', 6);
    expect(peak).toBe(3);
    expect(await t.messaging.queues.get('wide')).toMatchObject({ name: 'wide', parallelism: 3, paused: false, lag: 0 });
  });

  it('holds a paused queue: accepted, not delivered, until resumed', async () => {
    await t.messaging.queues.upsert({ name: 'held', paused: true });
    await t.messaging.enqueue({ queue: 'held', destination: `${destination.url}/held`, body: 'x' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(destination.received('/held')).toEqual([]);
    expect(await t.messaging.queues.get('held')).toMatchObject({ paused: true, lag: 1 });
    await t.messaging.queues.resume('held');
    await destination.waitFor('/held', 1);
  });

  it("lists each queue with its own waiting messages as its lag, not another queue's or a queueless one's", async () => {
    await t.messaging.queues.upsert({ name: 'lag-two', paused: true });
    await t.messaging.queues.upsert({ name: 'lag-one', paused: true });
    await t.messaging.queues.upsert({ name: 'lag-none', paused: true });
    for (const queue of ['lag-two', 'lag-two', 'lag-one'])
      await t.messaging.enqueue({ queue, destination: `${destination.url}/lag`, body: queue });
    await t.messaging.publish({ destination: `${destination.url}/lag`, body: 'no queue', delay: '1h' });
    const lags = Object.fromEntries((await t.messaging.queues.list()).map((queue) => [queue.name, queue.lag]));
    expect(lags).toMatchObject({ 'lag-two': 2, 'lag-one': 1, 'lag-none': 0 });
    expect(await t.messaging.queues.get('lag-two')).toMatchObject({ lag: 2 });
    for (const queue of ['lag-two', 'lag-one', 'lag-none']) await t.messaging.queues.delete(queue);
  });

  it('cancels the waiting messages of a deleted queue', async () => {
    await t.messaging.queues.upsert({ name: 'gone', paused: true });
    const { messageId } = await t.messaging.enqueue({ queue: 'gone', destination: `${destination.url}/gone`, body: 'x' });
    await t.messaging.queues.delete('gone');
    await expect(t.messaging.queues.get('gone')).rejects.toBeInstanceOf(NotFoundError);
    expect(await states(messageId)).toEqual(['CREATED', 'CANCEL_REQUESTED', 'CANCELED']);
    expect((await t.messaging.queues.list()).map((queue) => queue.name)).not.toContain('gone');
  });
});

describe('messages', () => {
  it('gets a pending message and cancels it before its delivery', async () => {
    const { messageId } = await t.messaging.publish({ destination: `${destination.url}/later`, body: 'x', delay: '1h' });
    expect(await t.messaging.messages.get(messageId)).toMatchObject({ messageId, url: `${destination.url}/later`, body: 'x' });
    expect(await t.messaging.messages.cancel(messageId)).toEqual({ cancelled: 1 });
    await expect(t.messaging.messages.get(messageId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.messaging.messages.cancel(messageId)).rejects.toBeInstanceOf(NotFoundError);
    expect(await states(messageId)).toEqual(['CREATED', 'CANCEL_REQUESTED', 'CANCELED']);
  });

  it('cancels by filter and all pending', async () => {
    for (const queue of ['c1', 'c1', 'c2'])
      await t.messaging.enqueue({ queue, destination: `${destination.url}/c`, body: queue, delay: '1h' });
    expect(await t.messaging.messages.cancelMany({ filter: { queue: 'c1' } })).toEqual({ cancelled: 2 });
    expect(await t.messaging.messages.cancelMany({ all: true })).toEqual({ cancelled: 1 });
    expect(destination.received('/c')).toEqual([]);
  });
});

describe('the message DLQ', () => {
  it('lists, gets, retries under a new id, and deletes', async () => {
    destination.script('/dead', failTimes(1));
    const { messageId } = await t.messaging.publish({ destination: `${destination.url}/dead`, body: 'x', retries: 0, label: 'l1' });
    await t.waitForEvents('dlq', 1);
    const page = await t.messaging.dlq.list({ label: 'l1', responseStatus: 500 });
    expect(page.messages).toHaveLength(1);
    const entry = page.messages[0]!;
    expect(entry).toMatchObject({ messageId, url: `${destination.url}/dead`, responseStatus: 500, body: 'x' });
    expect(await t.messaging.dlq.get(entry.dlqId)).toMatchObject({ dlqId: entry.dlqId });
    const retried = await t.messaging.dlq.retry(entry.dlqId);
    expect(retried.messageId).not.toBe(messageId);
    await destination.waitFor('/dead', 2);
    await expect(t.messaging.dlq.get(entry.dlqId)).rejects.toBeInstanceOf(NotFoundError);

    destination.script('/dead2', always(500));
    for (let index = 0; index < 3; index += 1)
      await t.messaging.publish({ destination: `${destination.url}/dead2`, body: String(index), retries: 0 });
    await t.waitForEvents('dlq', 4);
    const [first] = (await t.messaging.dlq.list()).messages;
    await t.messaging.dlq.delete(first!.dlqId);
    expect(await t.messaging.dlq.deleteMany({ all: true })).toMatchObject({ deleted: 2 });
    expect((await t.messaging.dlq.list()).messages).toEqual([]);
  });
});

describe('flow control', () => {
  it('caps a key at its parallelism across queues and publishes', async () => {
    let current = 0;
    let peak = 0;
    destination.script('/fc', () => {
      current += 1;
      peak = Math.max(peak, current);
      setTimeout(() => (current -= 1), 30);
      return { delayMs: 30 };
    });
    const flowControl = { key: 'tenant-1', parallelism: 1 };
    await Promise.all([
      t.messaging.enqueue({ queue: 'f1', destination: `${destination.url}/fc`, body: 'a', flowControl }),
      t.messaging.enqueue({ queue: 'f2', destination: `${destination.url}/fc`, body: 'b', flowControl }),
      t.messaging.publish({ destination: `${destination.url}/fc`, body: 'c', flowControl }),
    ]);
    await destination.waitFor('/fc', 3);
    expect(peak).toBe(1);
    expect(await t.messaging.flowControl.get('tenant-1')).toMatchObject({ flowControlKey: 'tenant-1', parallelismMax: 1, isPaused: false });
    expect((await t.messaging.flowControl.list()).map((info) => info.flowControlKey)).toEqual(['tenant-1']);
  });

  it('holds a paused key until resumed, and reports the global parallelism', async () => {
    const flowControl = { key: 'k2', rate: 100 };
    await t.messaging.publish({ destination: `${destination.url}/k2`, body: 'warm', flowControl });
    await destination.waitFor('/k2', 1);
    await t.messaging.flowControl.pause('k2');
    await t.messaging.publish({ destination: `${destination.url}/k2`, body: 'held', flowControl });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(destination.received('/k2')).toHaveLength(1);
    expect(await t.messaging.flowControl.get('k2')).toMatchObject({ isPaused: true, waitListSize: 1, rateMax: 100 });
    await t.messaging.flowControl.resume('k2');
    await destination.waitFor('/k2', 2);
    expect(await t.messaging.flowControl.globalParallelism()).toMatchObject({ parallelismMax: expect.any(Number), parallelismCount: 0 });
    await expect(t.messaging.flowControl.get('unknown')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('spaces a key to its rate per period', async () => {
    const flowControl = { key: 'slow', rate: 1, period: '1m' };
    for (let index = 0; index < 3; index += 1)
      await t.messaging.publish({ destination: `${destination.url}/rate`, body: String(index), flowControl });
    await destination.waitFor('/rate', 3);
    // One per (time-scaled) minute: each attempt starts 60 ms after the one before at the least, by the
    // server's clock (the times a busy destination sees them arrive also carry the network's jitter).
    const started = (await t.messaging.logs.list({ state: 'ACTIVE', url: `${destination.url}/rate` })).events
      .map((event) => event.time)
      .sort((a, b) => a - b);
    expect(started).toHaveLength(3);
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(60);
    expect(started[2]! - started[1]!).toBeGreaterThanOrEqual(60);
  });
});

describe('signing keys, redaction, regions', () => {
  it('rotates: deliveries are signed with the new current key and a receiver with both old keys still verifies', async () => {
    const before = await t.messaging.signingKeys.get();
    expect(before).toEqual({ current: t.server.currentSigningKey, next: t.server.nextSigningKey });
    const rotated = await t.messaging.signingKeys.rotate();
    expect(rotated.current).toBe(before.next);
    expect(rotated.next).not.toBe(before.current);
    await t.messaging.publish({ destination: `${destination.url}/signed`, body: 'x' });
    const [request] = await destination.waitFor('/signed', 1);
    const signature = request!.headers['service-signature'];
    const oldPair = createVerifier({ currentSigningKey: before.current, nextSigningKey: before.next, issuer: t.server.issuer });
    await expect(
      oldPair.verify({ signature, rawBody: new Uint8Array(request!.body), url: `${destination.url}/signed` }),
    ).resolves.toBeDefined();
    const oldCurrentOnly = createVerifier({ currentSigningKey: before.current, issuer: t.server.issuer });
    await expect(
      oldCurrentOnly.verify({ signature, rawBody: new Uint8Array(request!.body), url: `${destination.url}/signed` }),
    ).rejects.toThrow();
    expect(t.server.currentSigningKey).toBe(rotated.current);
  });

  it('redacts the body and named headers in logs, the DLQ and message views, never in the delivery', async () => {
    destination.script('/secret', always(500));
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/secret`,
      // Secrets no port, id or token can contain by chance ('4242' once matched a random port).
      body: 'card number 4242-secret',
      retries: 0,
      headers: { 'X-Token': 'header-secret-value', Authorization: 'Bearer auth-secret-value', 'X-Public': 'shown' },
      // Named as the sender wrote it (with the forward prefix) or as the destination receives it.
      redact: { body: true, headers: ['Service-Forward-X-Token', 'Authorization'] },
    });
    const [delivery] = await destination.waitFor('/secret', 1);
    expect(delivery?.text).toBe('card number 4242-secret');
    expect(delivery?.headers['x-token']).toBe('header-secret-value');
    expect(delivery?.headers.authorization).toBe('Bearer auth-secret-value');
    await t.waitForEvents('dlq', 1);
    // As the service shows it: REDACTED:<sha256>, under the header's delivered name.
    const [entry] = (await t.messaging.dlq.list()).messages;
    expect(entry?.body).toBe(`REDACTED:${sha256('card number 4242-secret')}`);
    expect(entry?.header).toEqual({
      'Content-Type': ['text/plain;charset=UTF-8'],
      'X-Token': [`REDACTED:${sha256('header-secret-value')}`],
      Authorization: [`REDACTED:${sha256('Bearer auth-secret-value')}`],
      'X-Public': ['shown'],
    });
    const logged = (await t.messaging.logs.list({ messageId })).events;
    expect(logged.every((event) => event.body === `REDACTED:${sha256('card number 4242-secret')}`)).toBe(true);
    const attempt = (logged.find((event) => event.state === 'ERROR') as { attempt?: { requestHeaders: Record<string, string> } }).attempt;
    const sent = new Headers(attempt?.requestHeaders);
    expect(sent.get('X-Token')).toBe(`REDACTED:${sha256('header-secret-value')}`);
    expect(sent.get('Authorization')).toBe(`REDACTED:${sha256('Bearer auth-secret-value')}`);
    expect(sent.get('X-Public')).toBe('shown');
    for (const secret of ['4242-secret', 'header-secret-value', 'auth-secret-value']) {
      expect(JSON.stringify(logged)).not.toContain(secret);
      expect(JSON.stringify(entry)).not.toContain(secret);
    }
  });

  it("shows a message's headers as delivered, forwarded ones without their prefix and none of its settings", async () => {
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/later`,
      body: '{}',
      contentType: 'application/json',
      headers: { 'Test-Header': 'value' },
      retries: 3,
      delay: '1h',
      callback: `${destination.url}/cb`,
    });
    const message = await t.messaging.messages.get(messageId);
    expect(message.header).toEqual({ 'Content-Type': ['application/json'], 'Test-Header': ['value'] });
    const [created] = (await t.messaging.logs.list({ messageId })).events;
    expect(created?.header).toEqual({ 'Content-Type': ['application/json'], 'Test-Header': ['value'] });
  });

  it('names its region on every delivery when it plays one', async () => {
    const regional = await startTestServer({ region: 'eu-central-1' });
    try {
      await regional.messaging.publish({ destination: `${destination.url}/region`, body: 'x' });
      const [request] = await destination.waitFor('/region', 1);
      expect(request?.headers['service-region']).toBe('eu-central-1');
    } finally {
      await regional.close();
    }
  });
});

describe('durability', () => {
  it('keeps schedules, queues, flow-control settings, rotated keys and logs across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-whole-'));
    try {
      const first = await startTestServer({ dataDir });
      await first.messaging.schedules.create({ destination: `${destination.url}/kept`, cron: '0 0 1 1 *', scheduleId: 'yearly' });
      await first.messaging.queues.upsert({ name: 'kept', parallelism: 4, paused: true });
      await first.messaging.flowControl.pause('fk');
      const keys = await first.messaging.signingKeys.rotate();
      const { messageId } = await first.messaging.enqueue({ queue: 'kept', destination: `${destination.url}/kept`, body: 'x' });
      for (const body of ['1', '2']) await first.messaging.publish({ destination: `${destination.url}/before`, body });
      await first.waitForEvents('delivered', 2);
      const logBefore = (await first.messaging.logs.list()).events.map((event) => `${event.messageId} ${event.state}`);
      await first.close();
      const second = await startTestServer({ dataDir });
      try {
        expect((await second.messaging.schedules.get('yearly')).cron).toBe('0 0 1 1 *');
        expect(await second.messaging.queues.get('kept')).toMatchObject({ parallelism: 4, paused: true, lag: 1 });
        expect(await second.messaging.signingKeys.get()).toEqual(keys);
        expect((await second.messaging.flowControl.get('fk')).isPaused).toBe(true);
        expect((await second.messaging.logs.list({ messageId })).events.map((event) => event.state)).toEqual(['CREATED']);
        // The snapshot keeps entries by message; the log reads back in the order it happened.
        expect((await second.messaging.logs.list()).events.map((event) => `${event.messageId} ${event.state}`)).toEqual(logBefore);
        await second.messaging.queues.resume('kept');
        await destination.waitFor('/kept', 1);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the rest of the client, end to end', () => {
  it('gets and deletes a URL group', async () => {
    await t.messaging.urlGroups.addEndpoints('team', [{ url: `${destination.url}/a`, name: 'a' }]);
    expect(await t.messaging.urlGroups.get('team')).toMatchObject({
      name: 'team',
      endpoints: [{ url: `${destination.url}/a`, name: 'a' }],
    });
    await t.messaging.urlGroups.delete('team');
    await expect(t.messaging.urlGroups.get('team')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('walks the DLQ with iterate and retries a filtered selection with retryMany', async () => {
    destination.script('/many', failTimes(3));
    for (const label of ['x', 'x', 'y'])
      await t.messaging.publish({ destination: `${destination.url}/many`, body: label, retries: 0, label });
    await t.waitForEvents('dlq', 3);
    const seen: string[] = [];
    for await (const entry of t.messaging.dlq.iterate({ count: 1 })) seen.push(entry.body ?? '');
    expect(seen.sort()).toEqual(['x', 'x', 'y']);
    const retried = await t.messaging.dlq.retryMany({ filter: { label: 'x' } });
    expect(retried.responses).toHaveLength(2);
    expect((await t.messaging.dlq.list()).messages.map((entry) => entry.body)).toEqual(['y']);
    await destination.waitFor('/many', 5);
  });

  it('pins, unpins and resets the rate of a flow-control key', async () => {
    await t.messaging.publish({
      destination: `${destination.url}/fk`,
      body: 'x',
      flowControl: { key: 'pinned', parallelism: 5, rate: 50 },
    });
    await destination.waitFor('/fk', 1);
    await t.messaging.flowControl.pin('pinned', { parallelism: 1, rate: 2, period: 60 });
    expect(await t.messaging.flowControl.get('pinned')).toMatchObject({
      parallelismMax: 1,
      rateMax: 2,
      ratePeriod: 60,
      isPinnedParallelism: true,
      isPinnedRate: true,
    });
    await t.messaging.flowControl.unpin('pinned', { parallelism: true, rate: true });
    expect(await t.messaging.flowControl.get('pinned')).toMatchObject({
      parallelismMax: 5,
      rateMax: 50,
      isPinnedParallelism: false,
      isPinnedRate: false,
    });
    await t.messaging.flowControl.resetRate('pinned');
    expect((await t.messaging.flowControl.get('pinned')).rateCount).toBe(0);
  });
});
