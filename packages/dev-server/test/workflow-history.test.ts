import { describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

// What a delivery of a run's message carries: the run's history, every step up to and including the
// delivered one; with `LazyFetch`, nothing once the history outgrows a message (the SDK fetches it).

useTestServer();

interface HistoryItem {
  messageId: string;
  body: string;
  callType: string;
}

async function publish(runId: string, init: boolean, body: string, features?: string): Promise<string> {
  const answer = await raw(t, 'POST', `/v2/publish/${destination.url}/wf`, {
    body,
    headers: {
      'Service-Workflow-RunId': runId,
      'Service-Workflow-Init': String(init),
      'Service-Workflow-Url': `${destination.url}/wf`,
      ...(features ? { 'Service-Feature-Set': features } : {}),
    },
  });
  expect(answer.status).toBe(200);
  return (answer.body as { messageId: string }).messageId;
}

describe("a run's history on delivery", () => {
  it('carries every step up to and including the delivered one for an SDK without LazyFetch', async () => {
    const trigger = await publish('wfr_eager', true, 'start');
    const [first] = await destination.waitFor('/wf', 1);
    expect(first!.headers['service-message-id']).toBe(trigger);
    expect(JSON.parse(first!.text)).toEqual([{ messageId: trigger, body: Buffer.from('start').toString('base64'), callType: 'step' }]);
    const stepBody = JSON.stringify({ stepId: 1, stepName: 'one', stepType: 'Run', out: '"1"', concurrent: 1 });
    const step = await publish('wfr_eager', false, stepBody);
    const [, second] = await destination.waitFor('/wf', 2);
    expect(second!.headers['service-message-id']).toBe(step);
    const history = JSON.parse(second!.text) as HistoryItem[];
    expect(history.map((item) => item.messageId)).toEqual([trigger, step]);
    expect(Buffer.from(history[1]!.body, 'base64').toString('utf8')).toBe(stepBody);
  });

  it('carries a history within the max message size with LazyFetch too, and nothing beyond it: the SDK fetches that from the run endpoint', async () => {
    // The free plan's 1 MiB: the trigger's history (its body in base64) fits, the next step's does not.
    const large = 'x'.repeat(500_000);
    const trigger = await publish('wfr_lazy', true, large, 'LazyFetch,InitialBody');
    const [first] = await destination.waitFor('/wf', 1);
    expect(JSON.parse(first!.text)).toEqual([{ messageId: trigger, body: Buffer.from(large).toString('base64'), callType: 'step' }]);
    const step = await publish('wfr_lazy', false, JSON.stringify({ stepId: 1, out: large }), 'LazyFetch,InitialBody');
    const [, second] = await destination.waitFor('/wf', 2);
    expect(second!.headers['service-message-id']).toBe(step);
    expect(second!.text).toBe('');
    const history = await raw(t, 'GET', '/v2/workflows/runs/wfr_lazy', {});
    expect((history.body as HistoryItem[]).map((item) => item.messageId)).toEqual([trigger, step]);
  });
});
