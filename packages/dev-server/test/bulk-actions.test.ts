import { NotFoundError } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { waitUntil } from './helpers/wait';
import { destination, t, useTestServer } from './helpers/test-server';

// Bulk actions in the background, as the service runs them: a filter-based cancel with `async=true`
// answers an action id at once, `GET /v2/bulkActions/{id}` follows it to FINISHED.

useTestServer({ plan: 'paid' });

describe('a bulk cancel in the background', () => {
  it('cancels every message matching the filter, slice by slice, and reports its progress and filter', async () => {
    for (let batch = 0; batch < 3; batch++) {
      await t.messaging.batch(
        Array.from({ length: 400 }, (_, index) => ({
          destination: `${destination.url}/later`,
          body: `${batch}-${index}`,
          delay: '1h' as const,
          label: 'bulk',
        })),
      );
    }
    const kept = await t.messaging.publish({ destination: `${destination.url}/later`, body: 'keep', delay: '1h', label: 'other' });
    const { actionId } = await t.messaging.messages.cancelInBackground({ filter: { label: 'bulk' } });
    let action = await t.messaging.bulkActions.get(actionId);
    expect(action).toMatchObject({ actionId, kind: 'cancel', total: 1200, filter: { label: ['bulk'] } });
    await waitUntil(
      async () => {
        action = await t.messaging.bulkActions.get(actionId);
        return action.state === 'FINISHED';
      },
      'the bulk action to finish',
      20_000,
    );
    expect(action).toMatchObject({ processed: 1200, completedAt: expect.any(Number) });
    await expect(t.messaging.logs.list({ state: 'CREATED', label: 'other' } as never)).resolves.toMatchObject({
      events: [expect.anything()],
    });
    await expect(t.messaging.messages.get(kept.messageId)).resolves.toMatchObject({ messageId: kept.messageId });
    const canceled = await t.messaging.logs.list({ state: 'CANCELED', count: 1000 });
    expect(canceled.events).toHaveLength(1000);
    await expect(t.messaging.bulkActions.get('bulk_unknown')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers other requests while a cancel of everything scans and commits, and leaves a message accepted meanwhile alone', async () => {
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const sent = await t.messaging.batch(
        Array.from({ length: 1000 }, (_, index) => ({
          destination: `${destination.url}/later`,
          body: `${batch}-${index}`,
          delay: '1h' as const,
        })),
      );
      ids.push(...sent.map((answer) => ('messageId' in answer ? answer.messageId : '')));
    }
    let answered = false;
    const cancelling = t.messaging.messages.cancelMany({ all: true }).finally(() => {
      answered = true;
    });
    // The oldest go first: once the first is gone the cancel is under way, with 19 slices to go.
    await waitUntil(
      () =>
        t.messaging.messages.get(ids[0]!).then(
          () => false,
          (error: unknown) => error instanceof NotFoundError,
        ),
      'the first slice to be cancelled',
      20_000,
    );
    const meanwhile = await t.messaging.publish({ destination: `${destination.url}/later`, body: 'meanwhile', delay: '1h' });
    expect(answered).toBe(false);
    await expect(cancelling).resolves.toEqual({ cancelled: 10_000 });
    await expect(t.messaging.messages.get(meanwhile.messageId)).resolves.toMatchObject({ messageId: meanwhile.messageId });
    await expect(t.messaging.messages.get(ids.at(-1)!)).rejects.toBeInstanceOf(NotFoundError);
  });
});
