import { Client, Receiver } from '@upstash/qstash';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startDestination, always, type TestDestination, type Received } from './helpers/destination';
import { startTestServer, type TestServer } from './helpers/test-server';

// The service's own SDK (`@upstash/qstash`), unchanged, pointed at the dev server with the real
// service's header prefix and issuer: a client nobody here wrote. Where it and our reading of the
// docs disagree, it is right about the wire. Every delivery is checked with its `Receiver`.

let server: TestServer;
let destination: TestDestination;
let qstash: Client;
let receiver: Receiver;

beforeEach(async () => {
  server = await startTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash', plan: 'paid' });
  destination = await startDestination();
  qstash = new Client({ baseUrl: server.server.url, token: server.server.token, retry: false, enableTelemetry: false, devMode: false });
  receiver = new Receiver({ currentSigningKey: server.server.currentSigningKey, nextSigningKey: server.server.nextSigningKey });
});
afterEach(async () => {
  await server.close();
  await destination.close();
});

/** The vendor's Receiver accepts the delivery as it arrived, for the URL it was sent to. */
async function verified(request: Received | undefined, path: string): Promise<void> {
  expect(request).toBeDefined();
  await expect(
    receiver.verify({ signature: String(request!.headers['upstash-signature']), body: request!.text, url: `${destination.url}${path}` }),
  ).resolves.toBe(true);
}

describe('the vendor SDK against mailroom dev', () => {
  it('publish, publishJSON (URL and URL group), and its Receiver verifies each delivery', async () => {
    const one = await qstash.publish({ url: `${destination.url}/p`, body: 'hello', retries: 0, delay: 0, label: ['a', 'b'] });
    expect(one.messageId).toMatch(/^msg_/);
    await verified((await destination.waitFor('/p', 1))[0], '/p');

    await qstash.urlGroups.addEndpoints({
      name: 'team',
      endpoints: [{ url: `${destination.url}/g1` }, { url: `${destination.url}/g2`, name: 'two' }],
    });
    const many = await qstash.publishJSON({ urlGroup: 'team', body: { n: 1 }, flowControl: { key: 'k', parallelism: 2 } });
    expect(many).toHaveLength(2);
    await verified((await destination.waitFor('/g1', 1))[0], '/g1');
    const [g2] = await destination.waitFor('/g2', 1);
    expect(g2?.headers['upstash-topic-name']).toBe('team');
    expect(g2?.headers['content-type']).toBe('application/json');
  });

  it('batch and batchJSON', async () => {
    const results = await qstash.batchJSON([
      { url: `${destination.url}/b1`, body: { a: 1 } },
      { url: `${destination.url}/b2`, body: { b: 2 }, queueName: 'vq' },
    ]);
    expect(results).toHaveLength(2);
    const [b1] = await destination.waitFor('/b1', 1);
    expect(b1?.text).toBe('{"a":1}');
    await verified(b1, '/b1');
    await destination.waitFor('/b2', 1);
    const plain = await qstash.batch([{ url: `${destination.url}/b3`, body: 'x' }]);
    expect(plain).toHaveLength(1);
    await destination.waitFor('/b3', 1);
  });

  it('queues: upsert, get, list, pause, enqueue, resume, delete', async () => {
    const queue = qstash.queue({ queueName: 'vendor' });
    await queue.upsert({ parallelism: 2 });
    expect(await queue.get()).toMatchObject({ name: 'vendor', parallelism: 2, paused: false });
    await queue.pause();
    expect((await queue.get()).paused).toBe(true);
    await queue.enqueueJSON({ url: `${destination.url}/q`, body: { q: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(destination.received('/q')).toEqual([]);
    expect((await qstash.queue().list()).map((q) => q.name)).toContain('vendor');
    await queue.resume();
    await verified((await destination.waitFor('/q', 1))[0], '/q');
    await queue.delete();
    await expect(queue.get()).rejects.toThrow(/not found/);
  });

  it('schedules: create, get, list, pause, resume, delete; a firing is verified like any delivery', async () => {
    const { scheduleId } = await qstash.schedules.create({
      destination: `${destination.url}/s`,
      cron: '* * * * *',
      body: 'tick',
      retries: 1,
      scheduleId: 'vendor-schedule',
    });
    expect(scheduleId).toBe('vendor-schedule');
    const [fired] = await destination.waitFor('/s', 1, 5000);
    await verified(fired, '/s');
    expect(fired?.headers['upstash-schedule-id']).toBe('vendor-schedule');
    const schedule = await qstash.schedules.get(scheduleId);
    expect(schedule).toMatchObject({ scheduleId, cron: '* * * * *', destination: `${destination.url}/s`, retries: 1, isPaused: false });
    expect((await qstash.schedules.list()).map((s) => s.scheduleId)).toEqual([scheduleId]);
    await qstash.schedules.pause({ schedule: scheduleId });
    expect((await qstash.schedules.get(scheduleId)).isPaused).toBe(true);
    await qstash.schedules.resume({ schedule: scheduleId });
    await qstash.schedules.delete(scheduleId);
    expect(await qstash.schedules.list()).toEqual([]);
  });

  it('messages: get, cancel, delete, deleteMany, deleteAll', async () => {
    const send = async () => (await qstash.publish({ url: `${destination.url}/m`, body: 'x', delay: '1h' })).messageId;
    const first = await send();
    expect(await qstash.messages.get(first)).toMatchObject({ messageId: first, url: `${destination.url}/m` });
    expect(await qstash.messages.cancel(first)).toEqual({ cancelled: 1 });
    await qstash.messages.delete(await send());
    expect(await qstash.messages.deleteMany([await send(), await send()])).toBe(2);
    await send();
    expect(await qstash.messages.deleteAll()).toBe(1);
    expect(destination.received('/m')).toEqual([]);
  });

  it('dlq: listMessages (with filters), retry, delete', async () => {
    destination.script('/d', always(500));
    for (let index = 0; index < 3; index += 1)
      await qstash.publish({ url: `${destination.url}/d`, body: String(index), retries: 0, label: 'dead' });
    await server.waitForEvents('dlq', 3);
    const { messages } = await qstash.dlq.listMessages({ filter: { label: 'dead', responseStatus: 500 } });
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatchObject({ url: `${destination.url}/d`, responseStatus: 500, dlqId: expect.any(String) });
    destination.script('/d', always(200));
    const retried = await qstash.dlq.retry(messages[0]!.dlqId);
    expect(retried.responses).toHaveLength(1);
    await destination.waitFor('/d', 4);
    expect(await qstash.dlq.delete(messages[1]!.dlqId)).toEqual({ deleted: 1 });
    expect(await qstash.dlq.delete({ all: true })).toMatchObject({ deleted: 1 });
    expect((await qstash.dlq.listMessages()).messages).toEqual([]);
  });

  it('logs and events, with filters and a cursor', async () => {
    const { messageId } = await qstash.publish({ url: `${destination.url}/l`, body: 'x' });
    await server.waitForEvents('delivered', 1);
    const { logs } = await qstash.logs({ filter: { messageId } });
    expect(logs.map((log) => log.state).reverse()).toEqual(['CREATED', 'ACTIVE', 'DELIVERED']);
    const page = await qstash.logs({ count: 1 });
    expect(page.logs).toHaveLength(1);
    expect(page.cursor).toBeTruthy();
    const next = await qstash.events({ cursor: page.cursor, count: 1 });
    expect(next.events[0]?.messageId).toBe(messageId);
  });

  it('url groups: addEndpoints, get, list, removeEndpoints, delete', async () => {
    await qstash.urlGroups.addEndpoints({ name: 'ug', endpoints: [{ url: `${destination.url}/1` }, { url: `${destination.url}/2` }] });
    expect((await qstash.urlGroups.get('ug')).endpoints).toHaveLength(2);
    expect((await qstash.urlGroups.list()).map((group) => group.name)).toEqual(['ug']);
    await qstash.urlGroups.removeEndpoints({ name: 'ug', endpoints: [{ url: `${destination.url}/1` }] });
    expect((await qstash.urlGroups.get('ug')).endpoints).toHaveLength(1);
    await qstash.urlGroups.delete('ug');
    expect(await qstash.urlGroups.list()).toEqual([]);
  });

  it('flow control: get, global parallelism, pause, resume, pin, unpin, resetRate', async () => {
    await qstash.publish({ url: `${destination.url}/f`, body: 'x', flowControl: { key: 'vk', parallelism: 3, rate: 10, period: '1m' } });
    await destination.waitFor('/f', 1);
    expect(await qstash.flowControl.get('vk')).toMatchObject({
      flowControlKey: 'vk',
      parallelismMax: 3,
      rateMax: 10,
      ratePeriod: 60,
      isPaused: false,
    });
    expect(await qstash.flowControl.getGlobalParallelism()).toMatchObject({ parallelismMax: expect.any(Number) });
    await qstash.flowControl.pause('vk');
    expect((await qstash.flowControl.get('vk')).isPaused).toBe(true);
    await qstash.flowControl.resume('vk');
    await qstash.flowControl.pin('vk', { parallelism: 1 });
    expect(await qstash.flowControl.get('vk')).toMatchObject({ parallelismMax: 1, isPinnedParallelism: true });
    await qstash.flowControl.unpin('vk', { parallelism: true });
    expect(await qstash.flowControl.get('vk')).toMatchObject({ parallelismMax: 3, isPinnedParallelism: false });
    await qstash.flowControl.resetRate('vk');
    expect((await qstash.flowControl.get('vk')).rateCount).toBe(0);
  });

  it('verifies a delivery after a key rotation with the rotated pair, and a regional delivery with region keys', async () => {
    const rotate = await fetch(`${server.server.url}/v2/keys/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.server.token}` },
    });
    const keys = (await rotate.json()) as { current: string; next: string };
    await qstash.publish({ url: `${destination.url}/r`, body: 'x' });
    const [request] = await destination.waitFor('/r', 1);
    const rotated = new Receiver({ currentSigningKey: keys.current, nextSigningKey: keys.next });
    await expect(
      rotated.verify({ signature: String(request!.headers['upstash-signature']), body: 'x', url: `${destination.url}/r` }),
    ).resolves.toBe(true);
    // The pair from before the rotation still verifies: its next key is the new current one.
    await verified(request, '/r');

    const regional = await startTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash', region: 'eu-central-1' });
    try {
      vi.stubEnv('QSTASH_REGION', 'eu-central-1');
      vi.stubEnv('EU_CENTRAL_1_QSTASH_CURRENT_SIGNING_KEY', regional.server.currentSigningKey);
      vi.stubEnv('EU_CENTRAL_1_QSTASH_NEXT_SIGNING_KEY', regional.server.nextSigningKey);
      const client = new Client({
        baseUrl: regional.server.url,
        token: regional.server.token,
        retry: false,
        enableTelemetry: false,
        devMode: false,
      });
      await client.publish({ url: `${destination.url}/eu`, body: 'y' });
      const [eu] = await destination.waitFor('/eu', 1);
      expect(eu?.headers['upstash-region']).toBe('eu-central-1');
      const regionOnly = new Receiver();
      await expect(
        regionOnly.verify({
          signature: String(eu!.headers['upstash-signature']),
          body: 'y',
          url: `${destination.url}/eu`,
          upstashRegion: String(eu!.headers['upstash-region']),
        }),
      ).resolves.toBe(true);
    } finally {
      vi.unstubAllEnvs();
      await regional.close();
    }
  });

  it('reports errors as the SDK expects them: its QstashError with the service message', async () => {
    // The SDK logs each failed call to console.error; keep the test output to what matters.
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await expect(qstash.messages.get('msg_missing')).rejects.toThrow(/message msg_missing not found/);
      await expect(qstash.queue({ queueName: 'nope' }).get()).rejects.toMatchObject({ status: 404 });
    } finally {
      quiet.mockRestore();
    }
  });
});
