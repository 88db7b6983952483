import { describe, expect, it } from 'vitest';
import type { MessagePage, MessageStory } from '../src/http/message-list';
import { raw } from './helpers/raw';
import { waitUntil } from './helpers/wait';
import { always } from './helpers/destination';
import { destination, t, useTestServer } from './helpers/test-server';

// The console's Messages, listed by the server (`GET /dev/messages`): pending messages and those the
// logs hold, filtered and paged newest first; one message's story (`GET /dev/messages/{id}`); and
// "cancel all matching" (`DELETE /dev/messages`) as a bulk action.

useTestServer({ plan: 'paid' });

const list = async (query: string): Promise<MessagePage> => {
  const answer = await raw(t, 'GET', `/dev/messages?${query}`);
  expect(answer.status).toBe(200);
  return answer.body as MessagePage;
};

describe('the console message list', () => {
  it('pages every message newest first with the total, and filters by state, queue, URL, label, text and time', async () => {
    const sent = await t.messaging.batch(
      Array.from({ length: 120 }, (_, index) => ({
        destination: `${destination.url}/${index % 2 === 0 ? 'even' : 'odd'}`,
        body: JSON.stringify({ order: `o-${index}` }),
        delay: '1h' as const,
        label: index % 3 === 0 ? 'third' : 'rest',
        ...(index < 10 ? { queue: 'slow' } : {}),
      })),
    );
    const ids = sent.map((result) => (result as { messageId: string }).messageId);
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await list(`count=50${cursor ? `&cursor=${cursor}` : ''}`);
      expect([page.total, page.pending]).toEqual([120, 120]);
      pages.push(page.messages.map((row) => row.messageId));
      cursor = page.cursor;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([50, 50, 20]);
    expect(pages.flat()).toEqual([...ids].reverse());

    const first = (await list('count=1')).messages[0]!;
    expect(first).toMatchObject({ messageId: ids[119], state: 'CREATED', method: 'POST', url: `${destination.url}/odd`, label: 'rest' });
    // On the server's clock, as a retry's: an hour at this server's time scale (0.001) is 3.6 s away.
    expect(first.nextDeliveryTime).toBe(first.createdAt + 3_600);

    expect((await list('url=/even')).total).toBe(60);
    expect((await list('label=third')).total).toBe(40);
    expect((await list('queue=slow')).total).toBe(10);
    // A quote: no id or URL holds one, so only the bodies can match.
    expect((await list(`text=${encodeURIComponent('"O-7')}`)).messages.map((row) => row.messageId).sort()).toEqual(
      [7, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79].map((index) => ids[index]).sort(),
    );
    expect((await list('state=DELIVERED')).total).toBe(0);
    expect((await list(`from=${first.createdAt + 1}`)).total).toBe(0);
    expect((await list('url=/even&label=third&queue=slow')).total).toBe(2);
  });

  it('lists finished messages the logs hold with their last state, hides run steps on request, and tells one message with its callbacks', async () => {
    destination.script('/down', always(500));
    const delivered = await t.messaging.publish({
      destination: `${destination.url}/ok`,
      body: 'hello',
      callback: `${destination.url}/cb`,
    });
    const failed = await t.messaging.publish({ destination: `${destination.url}/down`, body: 'x', retries: 0 });
    await t.waitForEvents('dlq', 1);
    await destination.waitFor('/cb', 1);
    await waitUntil(async () => (await list('state=DELIVERED')).total === 1, 'the delivered message to be listed');
    expect((await list('state=FAILED')).messages.map((row) => row.messageId)).toEqual([failed.messageId]);
    // Callbacks are told with the message they report on, not listed on their own.
    expect((await list('')).messages.map((row) => row.messageId).sort()).toEqual([delivered.messageId, failed.messageId].sort());

    await waitUntil(async () => {
      const story = (await raw(t, 'GET', `/dev/messages/${delivered.messageId}`)).body as MessageStory;
      return story.callbacks[0]?.state === 'DELIVERED';
    }, 'the callback to be delivered');
    const story = (await raw(t, 'GET', `/dev/messages/${delivered.messageId}`)).body as MessageStory;
    expect(story.message).toMatchObject({ messageId: delivered.messageId, state: 'DELIVERED', body: 'hello' });
    expect(story.events.map((event) => event.state)).toEqual(['CREATED', 'ACTIVE', 'DELIVERED']);
    expect(story.callbacks).toMatchObject([{ kind: 'callback', url: `${destination.url}/cb`, state: 'DELIVERED' }]);
    expect(story.callbacks[0]!.events.length).toBeGreaterThan(0);

    // A run's own messages: named by run and step, found by run, hidden with steps=false.
    for (const [init, body] of [
      ['true', 'the order'],
      ['false', JSON.stringify({ stepId: 1, stepName: 'charge', stepType: 'Run', out: '1' })],
    ]) {
      const sent = await raw(t, 'POST', `/v2/publish/${destination.url}/workflow`, {
        headers: { 'Service-Workflow-RunId': 'wfr_listed', 'Service-Workflow-Init': init!, 'Service-Delay': '1h' },
        body: body!,
      });
      expect(sent.status).toBe(200);
    }
    expect((await list('run=wfr_listed')).messages).toMatchObject([
      { workflowRunId: 'wfr_listed', step: 'charge (Run)' },
      { workflowRunId: 'wfr_listed', step: 'trigger' },
    ]);
    expect((await list('steps=false')).total).toBe(2);

    const missing = await raw(t, 'GET', '/dev/messages/msg_missing');
    expect([missing.status, (missing.body as { error: string }).error]).toEqual([
      404,
      expect.stringMatching(/neither pending nor in the logs/),
    ]);
  });

  it('never finds a message by its redacted body or headers', async () => {
    await t.messaging.publish({
      destination: `${destination.url}/secret`,
      body: 'card 4242',
      headers: { 'x-token': 'hunter2' },
      delay: '1h',
      redact: { body: true, headers: ['x-token'] },
    });
    expect((await list('url=/secret')).total).toBe(1);
    expect((await list('text=4242')).total).toBe(0);
    expect((await list('text=hunter2')).total).toBe(0);
    const story = (await raw(t, 'GET', `/dev/messages/${(await list('url=/secret')).messages[0]!.messageId}`)).body as MessageStory;
    expect(String(story.message.body)).toMatch(/^REDACTED:/);
  });

  it('cancels all matching pending messages as a bulk action, and refuses it to the read-only token', async () => {
    for (const label of ['go', 'go', 'go', 'stay']) {
      await t.messaging.publish({ destination: `${destination.url}/later`, body: label, delay: '1h', label });
    }
    expect((await raw(t, 'DELETE', '/dev/messages?label=go', { token: t.server.readOnlyToken })).status).toBe(403);
    const answer = await raw(t, 'DELETE', '/dev/messages?label=go');
    expect(answer).toMatchObject({ status: 202, body: { actionId: expect.stringMatching(/^bulk_/), total: 3 } });
    const { actionId } = answer.body as { actionId: string };
    await waitUntil(async () => (await t.messaging.bulkActions.get(actionId)).state === 'FINISHED', 'the bulk cancel to finish');
    expect((await list('label=go&state=CANCELED')).total).toBe(3);
    expect((await list('label=stay')).messages).toMatchObject([{ state: 'CREATED' }]);
  });

  it('refuses a filter it does not know, a bad time, count or cursor, saying what it expects', async () => {
    for (const [query, error] of [
      ['lable=x', /lable/],
      ['from=yesterday', /invalid from "yesterday" for GET \/dev\/messages: expected Unix milliseconds/],
      ['count=0', /invalid count "0"/],
      ['cursor=abc', /invalid cursor "abc": pass the cursor of the page before/],
      ['steps=maybe', /invalid steps "maybe" for GET \/dev\/messages: expected true or false/],
    ] as const) {
      const answer = await raw(t, 'GET', `/dev/messages?${query}`);
      expect([answer.status, (answer.body as { error: string }).error]).toEqual([400, expect.stringMatching(error)]);
    }
  });
});
