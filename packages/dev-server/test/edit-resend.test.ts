import { describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

// Edit and resend (`POST /dev/messages/{id}/resend` with `{ body?, headers? }`): a new message with
// every setting of the original, the body and delivered headers as edited, linked to the original.

useTestServer();

const resend = (id: string, edits?: unknown) =>
  raw(t, 'POST', `/dev/messages/${id}/resend`, edits === undefined ? {} : { body: JSON.stringify(edits) });

describe('edit and resend', () => {
  it('reports a resent URL-group message as every accepted message is reported, its group included', async () => {
    await t.messaging.urlGroups.addEndpoints('team', [{ url: `${destination.url}/team` }]);
    const [sent] = await t.messaging.publish({ destination: 'team', body: 'x' });
    await destination.waitFor('/team', 1);
    const copy = ((await resend(sent!.messageId)).body as { messageId: string }).messageId;
    const [original, resent] = t.events.filter((event) => event.type === 'accepted');
    expect(resent).toEqual({ ...original, messageId: copy });
  });

  it('delivers the edited body and headers with the original settings, linked to the original in the logs', async () => {
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/orders`,
      body: '{"orderId":"o-1"}',
      headers: { 'content-type': 'application/json', 'x-tenant': 'a' },
      retries: 4,
      label: 'orders',
    });
    await destination.waitFor('/orders', 1);
    const answer = await resend(messageId, { body: '{"orderId":"o-2"}', headers: { 'Content-Type': 'text/plain', 'X-Tenant': 'b' } });
    expect(answer.status).toBe(200);
    const copy = (answer.body as { messageId: string }).messageId;
    const [, second] = await destination.waitFor('/orders', 2);
    expect(second!.text).toBe('{"orderId":"o-2"}');
    expect([second!.headers['content-type'], second!.headers['x-tenant'], second!.headers['service-message-id']]).toEqual([
      'text/plain',
      'b',
      copy,
    ]);
    const { events } = await t.messaging.logs.list({ messageId: copy } as never);
    expect(events.every((event) => (event as { resentFrom?: string }).resentFrom === messageId)).toBe(true);
    expect(events.at(-1)).toMatchObject({ label: 'orders' });
  });

  it('drops the Content-Type when the edited headers leave it out, and keeps the body when only headers change', async () => {
    const { messageId } = await t.messaging.publishJSON({ destination: `${destination.url}/plain`, body: { a: 1 } });
    await destination.waitFor('/plain', 1);
    await resend(messageId, { headers: {} });
    const [, second] = await destination.waitFor('/plain', 2);
    expect(second!.text).toBe('{"a":1}');
    expect(second!.headers['content-type']).toBeUndefined();
  });

  it('refuses edits no delivery could carry, and a body over the plan', async () => {
    const { messageId } = await t.messaging.publish({ destination: `${destination.url}/x`, body: 'x' });
    for (const [edits, status, message] of [
      [{ headers: { 'bad name': 'v' } }, 400, /is not a valid HTTP header name/],
      [{ headers: { 'X-A': 'line\nbreak' } }, 400, /holds a control character/],
      [{ headers: ['X-A'] }, 400, /expected an object of header names/],
      [{ body: 42 }, 400, /body: expected the new body as text/],
      [{ body: 'x'.repeat(1024 * 1024 + 1) }, 412, /exceeds the max message size/],
    ] as const) {
      const answer = await resend(messageId, edits);
      expect([answer.status, (answer.body as { error: string }).error]).toEqual([status, expect.stringMatching(message)]);
    }
    const notJson = await raw(t, 'POST', `/dev/messages/${messageId}/resend`, { body: '{oops' });
    expect(notJson.status).toBe(400);
    expect((await resend('msg_missing')).status).toBe(404);
  });
});
