import { describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

useTestServer();

/** Tracks how many requests the destination is handling at once. */
function trackConcurrency(path: string, delayMs: number): () => number {
  let current = 0;
  let peak = 0;
  destination.script(path, () => {
    current += 1;
    peak = Math.max(peak, current);
    setTimeout(() => (current -= 1), delayMs);
    return { status: 200, delayMs };
  });
  return () => peak;
}

describe('queues', () => {
  it('delivers one message at a time per queue, in order', async () => {
    const peak = trackConcurrency('/serial', 15);
    for (let index = 0; index < 5; index += 1)
      await t.messaging.enqueue({ queue: 'serial', destination: `${destination.url}/serial`, body: String(index) });
    const requests = await destination.waitFor('/serial', 5);
    expect(requests.map((request) => request.text)).toEqual(['0', '1', '2', '3', '4']);
    expect(peak()).toBe(1);
  });

  it('lets a retrying message hold its queue', async () => {
    destination.script('/held', (request, index) => (request.text === 'first' && index < 2 ? { status: 500 } : { status: 200 }));
    await t.messaging.enqueue({ queue: 'held', destination: `${destination.url}/held`, body: 'first', retries: 3, retryDelay: '20000' });
    await t.messaging.enqueue({ queue: 'held', destination: `${destination.url}/held`, body: 'second' });
    const requests = await destination.waitFor('/held', 4);
    expect(requests.map((request) => request.text)).toEqual(['first', 'first', 'first', 'second']);
  });

  it('delivers different queues concurrently', async () => {
    const peak = trackConcurrency('/parallel', 60);
    await Promise.all(
      [0, 1, 2, 3].map((index) =>
        t.messaging.enqueue({ queue: `q${index}`, destination: `${destination.url}/parallel`, body: String(index) }),
      ),
    );
    await destination.waitFor('/parallel', 4);
    expect(peak()).toBeGreaterThan(1);
  });

  it('lets a later due message pass a delayed one in the same queue', async () => {
    await t.messaging.enqueue({ queue: 'mixed', destination: `${destination.url}/order`, body: 'delayed', delay: '10m' });
    await t.messaging.enqueue({ queue: 'mixed', destination: `${destination.url}/order`, body: 'now' });
    const requests = await destination.waitFor('/order', 2);
    expect(requests.map((request) => request.text)).toEqual(['now', 'delayed']);
  });
});

describe('names a URL resolves away', () => {
  it('refuses "." and ".." as a queue, URL group or schedule id, in the client and at the server', async () => {
    for (const name of ['.', '..']) {
      await expect(t.messaging.queues.upsert({ name, parallelism: 1 })).rejects.toThrow(/not "\." or "\.\." alone/);
      const upsert = await raw(t, 'POST', '/v2/queues', { body: JSON.stringify({ queueName: name, parallelism: 1 }) });
      expect([name, upsert.status]).toEqual([name, 400]);
      const enqueue = await raw(t, 'POST', `/v2/enqueue/${name}/${destination.url}/x`, { body: 'x' });
      expect(enqueue.status).toBeGreaterThanOrEqual(400);
      const schedule = await raw(t, 'POST', `/v2/schedules/${destination.url}/x`, {
        headers: { 'Service-Cron': '* * * * *', 'Service-Schedule-Id': name },
      });
      expect([name, schedule.status]).toEqual([name, 400]);
    }
    // "..." is no dot-segment: an ordinary name, created and managed.
    await t.messaging.queues.upsert({ name: '...', parallelism: 2 });
    expect((await t.messaging.queues.get('...')).parallelism).toBe(2);
    await t.messaging.queues.delete('...');
    expect(await t.messaging.queues.list()).toEqual([]);
  });
});
