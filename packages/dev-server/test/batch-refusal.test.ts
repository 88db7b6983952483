import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { startDestination, type TestDestination } from './helpers/destination';
import { startTestServer, type TestServer } from './helpers/test-server';

// All or none, generated: any batch of good items with one item the service refuses, wherever it
// stands, is refused whole and leaves nothing behind; the same batch without it is taken whole. The
// refused items meet each stage an item passes: reading it (its destination, its headers), checking
// it, and accepting it (an invoke trigger's request is read there), where a refusal that the check
// before does not make would leave the items before it kept.

let t: TestServer;
let destination: TestDestination;
let run = 0;

beforeAll(async () => {
  t = await startTestServer();
  destination = await startDestination();
});

afterAll(async () => {
  await t?.close();
  await destination?.close();
});

type Item = { destination: string; queue?: string; headers?: Record<string, string>; body: string };

/** A good item, to the URL of its run: what that run left behind is read from the log by it. */
const goodItem = (): fc.Arbitrary<Omit<Item, 'destination'>> =>
  fc.record({ queue: fc.constantFrom('orders', 'emails'), body: fc.string({ maxLength: 40 }) }, { requiredKeys: ['body'] });

type Refused = { item: Item; status: number; error: RegExp };

/** Items that read well as JSON and are each refused when accepted, with what the answer says. */
const refusedItem = (): fc.Arbitrary<Refused> =>
  fc.constantFrom<Refused>(
    { item: { destination: 'http://exa mple.test/x', body: 'x' }, status: 400, error: /invalid destination url/ },
    { item: { destination: 'no-such-group', body: 'x' }, status: 404, error: /topic no-such-group not found/ },
    { item: { destination: 'http://127.0.0.1:9/x', headers: { 'bad name': 'x' }, body: 'x' }, status: 400, error: /header/ },
    { item: { destination: 'http://127.0.0.1:9/x', headers: { 'Service-Retries': 'many' }, body: 'x' }, status: 400, error: /Retries/ },
    { item: { destination: 'api/llm', body: 'x' }, status: 400, error: /not supported by the dev server/ },
    {
      item: {
        destination: 'http://127.0.0.1:9/x',
        headers: { 'Service-Workflow-RunId': 'wfr_generated', 'Service-Workflow-Init': 'true', 'Service-Workflow-Invoke': 'true' },
        body: 'not JSON',
      },
      status: 400,
      error: /an invoke trigger must carry/,
    },
  );

describe('a batch is taken whole or not at all', () => {
  it('refuses a batch with one refused item anywhere in it, keeping nothing, and takes the rest alone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(goodItem(), { minLength: 1, maxLength: 6 }), refusedItem(), fc.nat(), async (parts, refused, at) => {
        const url = `${destination.url}/run-${(run += 1)}`;
        const good: Item[] = parts.map((part) => ({ destination: url, ...part }));
        // Accepted is what the state and the journal hold: the log's CREATED entries, not only the events.
        const created = async () => (await t.messaging.logs.list({ url, state: 'CREATED' })).events.length;
        const accepted = () => t.events.filter((event) => event.type === 'accepted').length;
        const before = accepted();
        const items = [...good];
        items.splice(at % (good.length + 1), 0, refused.item);
        const answer = await raw(t, 'POST', '/v2/batch', { body: JSON.stringify(items) });
        expect(answer.status).toBe(refused.status);
        expect((answer.body as { error: string }).error).toMatch(refused.error);
        expect(accepted()).toBe(before);
        expect(await created()).toBe(0);

        const alone = await raw(t, 'POST', '/v2/batch', { body: JSON.stringify(good) });
        expect(alone.status).toBe(200);
        expect(alone.body).toHaveLength(good.length);
        expect(accepted()).toBe(before + good.length);
        expect(await created()).toBe(good.length);
      }),
      { numRuns: 60 },
    );
  });
});
