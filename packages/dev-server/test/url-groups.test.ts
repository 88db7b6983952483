import { describe, expect, it } from 'vitest';

import { raw } from './helpers/raw';
import { receiverFor } from './helpers/receive';
import { destination, startTestServer, t, useTestServer } from './helpers/test-server';

useTestServer({ plan: 'paid' });

describe('URL groups', () => {
  it('creates a group by adding endpoints, lists it, and deletes it when emptied', async () => {
    const before = Date.now();
    await t.messaging.urlGroups.addEndpoints('orders', [{ name: 'a', url: `${destination.url}/a` }, { url: `${destination.url}/b` }]);
    const added = await raw(t, 'POST', '/v2/topics/orders/endpoints', {
      body: JSON.stringify({ endpoints: [{ name: 'c', url: `${destination.url}/c` }] }),
    });
    expect(added).toMatchObject({ status: 200, body: undefined });
    const [group] = await t.messaging.urlGroups.list();
    expect(group).toMatchObject({
      name: 'orders',
      endpoints: [{ name: 'a', url: `${destination.url}/a` }, { url: `${destination.url}/b` }, { name: 'c', url: `${destination.url}/c` }],
    });
    // As the service lists them: an endpoint added without a name has `"name": ""`.
    const listed = await raw(t, 'GET', '/v2/topics/orders');
    expect((listed.body as { endpoints: unknown[] }).endpoints[1]).toEqual({ name: '', url: `${destination.url}/b` });
    expect(group!.createdAt).toBeGreaterThanOrEqual(before);
    expect(group!.updatedAt).toBeGreaterThanOrEqual(group!.createdAt);

    await t.messaging.urlGroups.removeEndpoints('orders', [{ name: 'a' }]);
    await t.messaging.urlGroups.removeEndpoints('orders', [{ url: `${destination.url}/b` }]);
    expect((await t.messaging.urlGroups.list())[0]?.endpoints).toEqual([{ name: 'c', url: `${destination.url}/c` }]);
    await t.messaging.urlGroups.removeEndpoints('orders', [{ name: 'c' }]);
    expect(await t.messaging.urlGroups.list()).toEqual([]);
    await expect(t.messaging.urlGroups.removeEndpoints('orders', [{ name: 'c' }])).rejects.toMatchObject({ status: 404 });
  });

  it('refuses bad endpoint bodies with 400', async () => {
    for (const body of [
      '{}',
      '{"endpoints":[]}',
      '{"endpoints":[{"url":"ftp://x.test"}]}',
      'not json',
      '{"endpoints":[{"url":"http://a.test","name":"a b"}]}',
    ]) {
      expect([body, (await raw(t, 'POST', '/v2/topics/g/endpoints', { body })).status]).toEqual([body, 400]);
    }
  });

  it('fans an enqueue out to one message per endpoint, answered as an array', async () => {
    await t.messaging.urlGroups.addEndpoints('fan', [
      { name: 'one', url: `${destination.url}/one` },
      { name: 'two', url: `${destination.url}/two?v=2` },
    ]);
    const receive = receiverFor(t, destination.url);
    const results = await t.messaging.enqueue({ queue: 'q', destination: 'fan', body: 'hello', callback: `${destination.url}/cb` });
    expect(results).toEqual([
      { messageId: expect.stringMatching(/^msg_/), url: `${destination.url}/one` },
      { messageId: expect.stringMatching(/^msg_/), url: `${destination.url}/two?v=2` },
    ]);
    expect(results[0]!.messageId).not.toBe(results[1]!.messageId);
    const [one] = await destination.waitFor('/one', 1);
    const [two] = await destination.waitFor('/two', 1);
    expect(one!.headers['service-topic-name']).toBe('fan');
    expect(two!.headers['service-topic-name']).toBe('fan');
    expect(two!.url).toBe('/two?v=2');
    // Each endpoint's delivery is signed for its own URL.
    await expect(t.verify(one!.headers['service-signature'], one!.body, `${destination.url}/one`)).resolves.toBeDefined();
    await expect(t.verify(two!.headers['service-signature'], two!.body, `${destination.url}/two?v=2`)).resolves.toBeDefined();
    const callbacks = await Promise.all((await destination.waitFor('/cb', 2)).map((request) => receive.callback(request)));
    expect(callbacks.map((callback) => [callback.topicName, callback.endpointName]).sort()).toEqual([
      ['fan', 'one'],
      ['fan', 'two'],
    ]);
  });

  it('holds the free plan to one URL group (412)', async () => {
    const free = await startTestServer();
    try {
      await free.messaging.urlGroups.addEndpoints('first', [{ url: `${destination.url}/a` }]);
      await free.messaging.urlGroups.addEndpoints('first', [{ url: `${destination.url}/b` }]);
      await expect(free.messaging.urlGroups.addEndpoints('second', [{ url: `${destination.url}/a` }])).rejects.toMatchObject({
        status: 412,
      });
    } finally {
      await free.close();
    }
  });
});
