import { beforeEach, describe, expect, it } from 'vitest';
import { destination, t, useTestServer } from './helpers/test-server';

let clock: number;

// A clock the test moves, to step past the 10-minute window without waiting for it.
beforeEach(() => {
  clock = Date.now();
});
useTestServer({ plan: 'paid', now: () => clock });

describe('deduplication', () => {
  it('answers a repeated Deduplication-Id with the existing messageId and deduplicated: true, and delivers once', async () => {
    const send = () => t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/d`, body: 'one', deduplicationId: 'order-7' });
    const first = await send();
    const second = await send();
    const third = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/d`,
      body: 'other body',
      deduplicationId: 'order-7',
    });
    expect(first.deduplicated).toBeUndefined();
    expect(second).toEqual({ messageId: first.messageId, deduplicated: true });
    expect(third).toEqual({ messageId: first.messageId, deduplicated: true });
    await t.waitForEvents('delivered', 1);
    await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/d`, body: 'flush' });
    await t.waitForEvents('delivered', 2);
    expect(destination.received('/d').map((request) => request.text)).toEqual(['one', 'flush']);
  });

  it('deduplicates by content: destination, body, content type and forwarded headers', async () => {
    const base = {
      queue: 'q',
      destination: `${destination.url}/c` as const,
      body: '{"a":1}',
      contentType: 'application/json',
      headers: { 'X-A': '1', 'X-B': '2' },
      contentBasedDeduplication: true,
    };
    const first = await t.messaging.enqueue(base);
    expect(await t.messaging.enqueue({ ...base, headers: { 'X-B': '2', 'X-A': '1' } })).toEqual({
      messageId: first.messageId,
      deduplicated: true,
    });
    const variants = [
      { ...base, body: '{"a":2}' },
      { ...base, contentType: 'text/plain' },
      { ...base, headers: { 'X-A': '1' } },
      { ...base, destination: `${destination.url}/c2` as const },
    ];
    for (const variant of variants) expect((await t.messaging.enqueue(variant)).deduplicated).toBeUndefined();
    // Without the flag, the same content is a new message.
    const { contentBasedDeduplication: _flag, ...plain } = base;
    expect((await t.messaging.enqueue(plain)).messageId).not.toBe(first.messageId);
  });

  it('forgets a key after 10 minutes', async () => {
    const send = () =>
      t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/w`, body: 'x', deduplicationId: 'k', delay: '1d' });
    const first = await send();
    clock += 9 * 60_000;
    expect((await send()).deduplicated).toBe(true);
    clock += 61_000;
    const later = await send();
    expect(later.deduplicated).toBeUndefined();
    expect(later.messageId).not.toBe(first.messageId);
  });

  it('answers a deduplicated URL-group enqueue with every existing message', async () => {
    await t.messaging.urlGroups.addEndpoints('g', [{ url: `${destination.url}/1` }, { url: `${destination.url}/2` }]);
    const first = await t.messaging.enqueue({ queue: 'q', destination: 'g', body: 'x', deduplicationId: 'fan-1' });
    const second = await t.messaging.enqueue({ queue: 'q', destination: 'g', body: 'x', deduplicationId: 'fan-1' });
    expect(second).toEqual(first.map((result) => ({ ...result, deduplicated: true })));
  });
});
