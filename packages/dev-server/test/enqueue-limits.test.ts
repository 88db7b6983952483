import { MAX_SIGNED_URL_BYTES } from '@mailroom/core/internal-protocol';
import { PlanLimitError, ValidationError } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { destination, startTestServer, t, useTestServer } from './helpers/test-server';

// What could never be delivered is refused when it is enqueued, with a 400 that names the limit,
// instead of being accepted and retried into the DLQ; and the plan's limits hold.

useTestServer();

const longUrl = () => `${destination.url}/${'a'.repeat(MAX_SIGNED_URL_BYTES)}`;
const fittingUrl = () => `${destination.url}/${'a'.repeat(MAX_SIGNED_URL_BYTES - destination.url.length - 1)}`;

describe('refused at enqueue, never accepted to fail later', () => {
  it('a destination or callback URL too long to be signed into a token receivers accept', async () => {
    const answer = await raw(t, 'POST', `/v2/publish/${longUrl()}`, { body: 'x' });
    expect(answer.status).toBe(400);
    expect((answer.body as { error: string }).error).toMatch(/a URL the service signs may take at most \d+.*8192 characters/);
    const callback = await raw(t, 'POST', `/v2/publish/${destination.url}/x`, { body: 'x', headers: { 'Service-Callback': longUrl() } });
    expect(callback.status).toBe(400);
    expect((callback.body as { error: string }).error).toMatch(/invalid Service-Callback url: it is \d+ bytes long/);
    const group = await raw(t, 'POST', '/v2/topics/g/endpoints', { body: JSON.stringify({ endpoints: [{ url: longUrl() }] }) });
    expect(group.status).toBe(400);
    expect((await t.messaging.logs.list()).events).toEqual([]);
    expect(t.events.filter((event) => event.type === 'dlq')).toEqual([]);
  });

  it('the longest URL that fits is delivered, with a signature receivers accept', async () => {
    const url = fittingUrl();
    const answer = await raw(t, 'POST', `/v2/publish/${url}`, { body: 'x' });
    expect(answer.status).toBe(200);
    const [received] = await destination.waitFor(new URL(url).pathname, 1);
    await expect(t.verify(received!.headers['service-signature'], received!.body, url)).resolves.toBeDefined();
  });

  it('is refused by the client before it sends', async () => {
    await expect(t.messaging.publish({ destination: longUrl(), body: 'x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(t.messaging.publish({ destination: `${destination.url}/x`, callback: longUrl() })).rejects.toThrow(/at most \d+/);
  });

  it('a batch item whose header name or value no HTTP request can carry', async () => {
    for (const [headers, error] of [
      [{ 'Service-Forward-X': 'a\r\nInjected: 1' }, /control character \(a line break, NUL, ...\)/],
      [{ 'Service-Forward-X': 'bell\u0007' }, /control character/],
      [{ 'Service-Forward-X': 'delete\u007f' }, /control character/],
      [{ 'Service-Forward-Bad Name': 'v' }, /not a valid HTTP header name/],
      [{ 'Service-Forward-X\n': 'v' }, /not a valid HTTP header name/],
      [{ 'Service-Forward-X': 'caf\u00e9 \u2603' }, /outside Latin-1/],
      [{ 'Service-Forward-X': { nested: true } }, /must be a string, got object/],
      [{ 'Service-Forward-X': ['a'] }, /must be a string, got an array/],
      [{ 'Service-Forward-X': null }, /must be a string, got null/],
    ] as const) {
      const body = JSON.stringify([
        { destination: `${destination.url}/ok`, body: 'fine' },
        { destination: `${destination.url}/x`, headers, body: 'x' },
      ]);
      const answer = await raw(t, 'POST', '/v2/batch', { body });
      expect(answer.status).toBe(400);
      expect((answer.body as { error: string }).error).toMatch(error);
    }
    // Nothing of a refused batch is accepted, the good item included.
    expect((await t.messaging.logs.list()).events).toEqual([]);
    // Latin-1 text is what a header can carry: accepted and delivered byte for byte.
    const fine = await raw(t, 'POST', '/v2/batch', {
      body: JSON.stringify([
        { destination: `${destination.url}/latin`, headers: { 'Service-Forward-X': 'caf\u00e9', 'Service-Retries': 2 }, body: 'x' },
      ]),
    });
    expect(fine.status).toBe(200);
    const [received] = await destination.waitFor('/latin', 1);
    expect(received!.headers.x).toBe('caf\u00e9');
  });

  it('a retry-delay expression that gives the first retry no delay', async () => {
    for (const expression of ['1/0', 'pow(10, 400)', '-1000', '0 - retried - 1']) {
      const answer = await raw(t, 'POST', `/v2/publish/${destination.url}/x`, {
        body: 'x',
        headers: { 'Service-Retry-Delay': expression },
      });
      expect([expression, answer.status]).toEqual([expression, 400]);
      expect((answer.body as { error: string }).error).toMatch(/retried=0/);
    }
    // Valid at first and failing later is accepted: that retry falls back to the default backoff.
    const later = await raw(t, 'POST', `/v2/publish/${destination.url}/x`, {
      body: 'x',
      headers: { 'Service-Retry-Delay': '1000 + 1000 / (retried - 2)' },
    });
    expect(later.status).toBe(200);
  });
});

describe('plan limits', () => {
  it('refuses a queue, a schedule or a batch beyond the free plan, with 412 naming the limit', async () => {
    const free = (await t.management.users())[0]!;
    for (let index = 0; index < free.max_queues!; index += 1) {
      await t.messaging.enqueue({ queue: `q${index}`, destination: `${destination.url}/q`, body: 'x' });
    }
    const queue = await t.messaging
      .enqueue({ queue: 'one-more', destination: `${destination.url}/q`, body: 'x' })
      .catch((error: unknown) => error);
    expect(queue).toBeInstanceOf(PlanLimitError);
    expect((queue as Error).message).toMatch(/allows 10 queues/);
    await expect(t.messaging.queues.upsert({ name: 'one-more', parallelism: 1 })).rejects.toBeInstanceOf(PlanLimitError);

    for (let index = 0; index < free.max_schedules!; index += 1) {
      await t.messaging.schedules.create({ destination: `${destination.url}/s`, cron: '0 0 1 1 *' });
    }
    const schedule = await t.messaging.schedules
      .create({ destination: `${destination.url}/s`, cron: '0 0 1 1 *' })
      .catch((error: unknown) => error);
    expect(schedule).toBeInstanceOf(PlanLimitError);
    expect((schedule as Error).message).toMatch(/allows 10 schedules/);

    const items = Array.from({ length: free.max_requests_per_day! + 1 }, () => ({ destination: `${destination.url}/b`, body: 'x' }));
    const batch = await raw(t, 'POST', '/v2/batch', { body: JSON.stringify(items) });
    expect(batch.status).toBe(412);
    expect((batch.body as { error: string }).error).toMatch(/1001 messages exceeds the 1000 messages per day of the free plan/);
  });

  it('refuses a batch whose new queues would pass the plan, keeping none of it, and takes one that fits', async () => {
    const free = (await t.management.users())[0]!;
    for (let index = 0; index < free.max_queues! - 1; index += 1) {
      await t.messaging.enqueue({ queue: `q${index}`, destination: `${destination.url}/q`, body: 'x' });
    }
    const item = (queue: string) => ({ destination: `${destination.url}/b`, queue, body: queue });
    const refused = await raw(t, 'POST', '/v2/batch', { body: JSON.stringify([item('q0'), item('new-1'), item('new-2')]) });
    expect(refused.status).toBe(412);
    expect((refused.body as { error: string }).error).toMatch(/allows 10 queues/);
    expect((await t.messaging.queues.list()).map((queue) => queue.name)).not.toContain('new-1');
    expect(t.events.filter((event) => event.type === 'accepted')).toHaveLength(free.max_queues! - 1);

    const taken = await raw(t, 'POST', '/v2/batch', { body: JSON.stringify([item('new-1'), item('new-1'), item('q0')]) });
    expect(taken.status).toBe(200);
    expect(taken.body).toHaveLength(3);
    await destination.waitFor('/b', 3);
  });

  it('keeps none of a batch whose last item is a workflow invoke trigger without its JSON request', async () => {
    const plain = { destination: `${destination.url}/i`, body: 'plain' };
    const invoke = {
      destination: `${destination.url}/i`,
      headers: { 'Service-Workflow-RunId': 'wfr_invoked', 'Service-Workflow-Init': 'true', 'Service-Workflow-Invoke': 'true' },
      body: 'not the invoking request',
    };
    const answer = await raw(t, 'POST', '/v2/batch', { body: JSON.stringify([plain, plain, invoke]) });
    expect(answer.status).toBe(400);
    expect((answer.body as { error: string }).error).toMatch(/an invoke trigger must carry/);
    expect(t.events.filter((event) => event.type === 'accepted')).toEqual([]);
    expect((await t.messaging.logs.list()).events).toEqual([]);
  });

  it('answers a deduplication id repeated within one batch with the message of its first item', async () => {
    const item = (body: string) => ({ destination: `${destination.url}/d`, headers: { 'Service-Deduplication-Id': 'once' }, body });
    const answer = await raw(t, 'POST', '/v2/batch', { body: JSON.stringify([item('first'), item('second')]) });
    expect(answer.status).toBe(200);
    const [first, second] = answer.body as Array<{ messageId: string; deduplicated?: boolean }>;
    expect(second!.messageId).toBe(first!.messageId);
    expect(second!.deduplicated).toBe(true);
    const [received] = await destination.waitFor('/d', 1);
    expect(received!.body.toString()).toBe('first');
    expect(t.events.filter((event) => event.type === 'accepted')).toHaveLength(1);
    expect(t.events.filter((event) => event.type === 'deduplicated')).toHaveLength(1);
  });

  it('keeps answering other requests while a large batch is accepted', async () => {
    const paid = await startTestServer({ plan: 'paid', timeScale: 1 });
    try {
      const items = Array.from({ length: 30_000 }, (_, index) => ({
        destination: `${destination.url}/big`,
        body: String(index),
        headers: { 'Service-Delay': '1d' },
      }));
      const order: string[] = [];
      // The batch's body is streamed, so the other request can be asked the moment its last byte is
      // sent: the server is then reading and checking the 30,000 items (its items are committed
      // together, at the end).
      let sent!: () => void;
      const bodySent = new Promise<void>((resolve) => (sent = resolve));
      const text = new TextEncoder().encode(JSON.stringify(items));
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(text);
          controller.close();
          sent();
        },
      });
      const big = fetch(`${paid.server.url}/v2/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${paid.server.token}` },
        body,
        duplex: 'half',
      } as RequestInit).then(async (response) => {
        order.push(`batch ${response.status}`);
        return (await response.json()) as unknown[];
      });
      await bodySent;
      const small = await fetch(`${paid.server.url}/v2/queues`, { headers: { authorization: `Bearer ${paid.server.token}` } });
      order.push(`queues ${small.status}`);
      expect(await big).toHaveLength(30_000);
      expect(order).toEqual(['queues 200', 'batch 200']);
    } finally {
      await paid.close();
    }
  }, 60_000);
});
