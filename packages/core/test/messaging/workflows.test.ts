import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src';
import { messagingFixture, type StubServer } from './client-fixture';

// The workflow methods against a stub on a real socket: what goes on the wire, and how answers are read.

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});
async function setup() {
  const fixture = await messagingFixture();
  stub = fixture.stub;
  return fixture;
}

const run = {
  workflowRunId: 'wfr_1',
  workflowUrl: 'https://app.test/wf',
  workflowState: 'RUN_SUCCESS',
  workflowRunCreatedAt: 1_700_000_000_000,
  workflowRunCompletedAt: 1_700_000_001_000,
  steps: [{ type: 'sequential', steps: [{ messageId: 'msg_1', stepName: 'init', stepType: 'Initial', state: 'STEP_SUCCESS' }] }],
  workflowRunResponse: '"done"',
  invoker: { workflowRunId: 'wfr_0' },
};

describe('workflows', () => {
  it('lists runs with their steps, grouped by run, filters in the query, and pages with the cursor', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: { runs: [run], cursor: '7' } }, { json: { runs: [{ ...run, workflowRunId: 'wfr_2' }], cursor: '' } });
    const seen: string[] = [];
    for await (const found of client.workflows.iterate({ workflowUrl: 'https://app.test/wf', state: 'RUN_SUCCESS', count: 1 })) {
      seen.push(found.workflowRunId);
    }
    expect(seen).toEqual(['wfr_1', 'wfr_2']);
    expect(stub.requests[0]?.path).toBe('/v2/workflows/events');
    expect(stub.requests[0]?.query).toEqual({
      groupBy: 'workflowRunId',
      workflowUrl: 'https://app.test/wf',
      state: 'RUN_SUCCESS',
      count: '1',
    });
    expect(stub.requests[1]?.query).toMatchObject({ cursor: '7' });
  });

  it('keeps fields it does not know, and refuses bad filters before sending', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: { runs: [run] } });
    const page = await client.workflows.logs();
    expect(page.cursor).toBeUndefined();
    expect(page.runs[0]).toMatchObject({ invoker: { workflowRunId: 'wfr_0' }, workflowRunResponse: '"done"' });
    await expect(client.workflows.logs({ state: 'DONE' as never })).rejects.toBeInstanceOf(ValidationError);
    await expect(client.workflows.logs({ runId: 'x' } as never)).rejects.toThrow(/runId: unknown filter/);
    expect(stub.requests).toHaveLength(1);
  });

  it('cancels runs by id, notifies an event (of one run), and lists its waiters', async () => {
    const { stub, client } = await setup();
    stub.reply(
      { json: { cancelled: 2 } },
      { json: [{ waiter: { url: 'https://app.test/wf', deadline: 1_700_000_100 }, messageId: 'msg_9', error: '' }] },
      { json: [] },
      { json: [{ url: 'https://app.test/wf', deadline: 1_700_000_100 }] },
    );
    expect(await client.workflows.cancel(['wfr_1', 'wfr_2'])).toEqual({ cancelled: 2 });
    expect(stub.requests[0]).toMatchObject({ method: 'DELETE', path: '/v2/workflows/runs', query: { workflowRunIds: ['wfr_1', 'wfr_2'] } });
    const notified = await client.workflows.notify('approval', { ok: true });
    expect(notified[0]?.messageId).toBe('msg_9');
    expect(stub.requests[1]).toMatchObject({ method: 'POST', path: '/v2/notify/approval' });
    expect(stub.requests[1]?.json()).toEqual({ ok: true });
    await client.workflows.notify('approval', 'text', { runId: 'wfr_1' });
    expect(stub.requests[2]?.path).toBe('/v2/notify/wfr_1/approval');
    expect(await client.workflows.waiters('approval')).toEqual([{ url: 'https://app.test/wf', deadline: 1_700_000_100 }]);
    expect(stub.requests[3]?.path).toBe('/v2/waiters/approval');
    expect(() => client.workflows.cancel([])).toThrow(ValidationError);
    expect(() => client.workflows.notify('')).toThrow(ValidationError);
  });

  it('resumes, restarts and deletes failed runs in the workflow DLQ', async () => {
    const { stub, client } = await setup();
    stub.reply(
      { json: { workflowRuns: [{ workflowRunId: 'wfr_1', workflowCreatedAt: 1 }] } },
      { json: { workflowRuns: [{ workflowRunId: 'wfr_new', workflowCreatedAt: 2 }] } },
      { json: { deleted: 1 } },
    );
    expect(await client.workflowDlq.resume('1-1')).toEqual([{ workflowRunId: 'wfr_1', workflowCreatedAt: 1 }]);
    expect(stub.requests[0]).toMatchObject({ method: 'POST', path: '/v2/workflows/dlq/resume', query: { dlqIds: '1-1' } });
    expect(await client.workflowDlq.restart(['1-2'])).toEqual([{ workflowRunId: 'wfr_new', workflowCreatedAt: 2 }]);
    expect(stub.requests[1]?.path).toBe('/v2/workflows/dlq/restart');
    expect(await client.workflowDlq.delete('1-3')).toEqual({ deleted: 1 });
    expect(stub.requests[2]).toMatchObject({ method: 'DELETE', path: '/v2/workflows/dlq', query: { dlqIds: '1-3' } });
  });
});
