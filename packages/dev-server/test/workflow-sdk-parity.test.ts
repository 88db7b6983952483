import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { waitUntil } from './helpers/wait';
import { useWorkflowApp, w } from './helpers/workflow-app';

// What the Workflow SDK's client and context read that the service offers, and what the vendor's own
// suites found missing: lookback notify, the failure function's payload, bulk cancel, labels,
// complete step logs, the error a failure function gets when nothing answered, and runs deduplicated
// by id or refused once cancelled.

useWorkflowApp();

const steps = (log: { steps: Array<{ type: string; steps: Array<Record<string, unknown>> }> }) =>
  log.steps.filter((group) => group.type !== 'next').flatMap((group) => group.steps);

describe('the Workflow SDK against mailroom dev, feature by feature', () => {
  it('keeps a notify that names the run (lookback) for the wait that comes after it', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const url = w.workflow<string>('/lookback', async (context) => {
      await context.run('slow', () => gate);
      const { eventData, timeout } = await context.waitForEvent('wait', 'paid', { timeout: '1d' });
      return { eventData, timeout };
    });
    const { workflowRunId } = await w.client().trigger({ url, body: 'x' });
    // Before the run waits: without the run id nobody is notified; with it the event is kept.
    expect(await w.client().notify({ eventId: 'paid', eventData: { early: false } })).toEqual([]);
    expect(await w.client().notify({ eventId: 'paid', eventData: { early: true }, workflowRunId })).toEqual([]);
    release();
    await w.runEnded(workflowRunId, 'RUN_SUCCESS');
    const [log] = (await w.client().logs({ workflowRunId })).runs;
    expect(JSON.parse(log!.workflowRunResponse!)).toEqual({ eventData: { early: true }, timeout: false });
    const wait = steps(log as never).find((step) => step.stepType === 'Wait')!;
    expect(wait).toMatchObject({ waitEventId: 'paid', waitTimeout: false, waitTimeoutDuration: '1d' });
    expect(wait.waitTimeoutDeadline).toEqual(expect.any(Number));
    // A run that is not going cannot be notified ahead.
    await expect(w.client().notify({ eventId: 'paid', eventData: 1, workflowRunId: 'wfr_nope' })).rejects.toThrow(/not found/);
  });

  it("gives the failure function the trigger's body, and the error when nothing answered", async () => {
    const seen: Array<{ payload: unknown; failResponse: string; status: number }> = [];
    const url = w.workflow<{ orderId: string }>(
      '/failing-call',
      async (context) => {
        await context.run('first', () => 'ok');
        await context.run('second', () => {
          throw new Error('second failed');
        });
      },
      {
        failureFunction: async ({ context, failResponse, failStatus }) =>
          void seen.push({ payload: context.requestPayload, failResponse, status: failStatus }),
      },
    );
    const { workflowRunId } = await w.client().trigger({ url, body: { orderId: 'o-9' }, retries: 0 });
    await w.runEnded(workflowRunId, 'RUN_FAILED');
    await waitUntil(() => seen.length === 1, 'the failure function', 20_000);
    expect(seen[0]).toEqual({ payload: { orderId: 'o-9' }, failResponse: 'second failed', status: 500 });
    // A run whose first delivery never connects: the failure function gets the refused connection.
    const unreachable = 'http://127.0.0.1:9/nowhere';
    const failures: string[] = [];
    // A route with a step: the SDK runs a failure function only for a route that would run one.
    const failureUrl = w.workflow<string>('/failure-sink', async (context) => void (await context.run('never', () => 'x')), {
      failureFunction: async ({ failResponse }) => void failures.push(failResponse),
    });
    const dead = await w.client().trigger({ url: unreachable, body: 'x', retries: 0, failureUrl });
    await w.runEnded(dead.workflowRunId, 'RUN_FAILED');
    await waitUntil(() => failures.length === 1, 'the failure function of the unreachable run', 20_000);
    expect(failures[0]).toMatch(/ECONNREFUSED|connect/);
  });

  it('cancels runs by filter and all at once, labels runs and their DLQ entries, and filters logs by label', async () => {
    const sleeper = w.workflow<string>('/sleeps', async (context) => {
      await context.sleep('long', 86_400);
    });
    const ids: string[] = [];
    for (const label of ['billing', 'billing', 'emails'])
      ids.push((await w.client().trigger({ url: sleeper, body: label, label })).workflowRunId);
    const [log] = (await w.client().logs({ workflowRunId: ids[0] })).runs;
    expect(log).toMatchObject({ label: 'billing', labels: ['billing'] });
    const billing = await w.client().logs({ filter: { label: 'billing' } } as never);
    expect(billing.runs.map((run) => run.workflowRunId).sort()).toEqual([ids[0], ids[1]].sort());
    expect(await w.client().cancel({ filter: { label: 'billing' } })).toEqual({ cancelled: 2 });
    expect(await w.client().cancel({ all: true })).toEqual({ cancelled: 1 });
    for (const runId of ids) await w.runEnded(runId, 'RUN_CANCELED');
    // A run's label reaches the DLQ entry of its failing step.
    const failing = w.workflow<string>('/labelled-failure', async (context) => {
      await context.run('boom', () => {
        throw new Error('boom');
      });
    });
    const { workflowRunId } = await w.client().trigger({ url: failing, body: 'x', label: ['team-a', 'team-b'], retries: 0 });
    await w.runEnded(workflowRunId, 'RUN_FAILED');
    const [entry] = (await w.client().dlq.list({ filter: { label: 'team-b' } })).messages;
    expect(entry).toMatchObject({ workflowRunId, label: 'team-a', labels: ['team-a', 'team-b'] });
  });

  it('logs every step with its time, retries and headers, and a call with its request and answer', async () => {
    let thirdParty: Server | undefined;
    try {
      thirdParty = createServer((req, res) => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-answer': 'yes' }).end('{"ok":true}');
        req.resume();
      });
      await new Promise<void>((resolve) => thirdParty!.listen(0, '127.0.0.1', resolve));
      const callUrl = `http://127.0.0.1:${(thirdParty.address() as AddressInfo).port}/api`;
      const url = w.workflow<string>('/calls', async (context) => {
        await context.call('ask', { url: callUrl, method: 'PUT', body: JSON.stringify({ question: 42 }), headers: { 'x-asked-by': 'wf' } });
      });
      const { workflowRunId } = await w.client().trigger({ url, body: 'x', retries: 2, headers: { 'x-tenant': 'acme' } });
      await w.runEnded(workflowRunId, 'RUN_SUCCESS');
      const [log] = (await w.client().logs({ workflowRunId })).runs;
      const all = steps(log as never);
      for (const step of all) {
        expect(step).toMatchObject({ createdAt: expect.any(Number), retries: 2, headers: expect.any(Object) });
      }
      expect(all.find((step) => step.stepName === 'init')!.headers).toMatchObject({ 'X-Tenant': ['acme'] });
      expect(all.find((step) => step.stepType === 'Call')).toMatchObject({
        callType: 'fromCallback',
        callUrl,
        callMethod: 'PUT',
        callHeaders: { 'X-Asked-By': ['wf'] },
        callBody: '{"question":42}',
        callResponseStatus: 201,
        callResponseBody: '{"ok":true}',
        callResponseHeaders: expect.objectContaining({ 'X-Answer': ['yes'] }),
      });
    } finally {
      thirdParty?.closeAllConnections();
      await new Promise((resolve) => thirdParty?.close(resolve));
    }
  });

  it('answers a second trigger of a run id as a duplicate, and refuses a step published for a cancelled run', async () => {
    const url = w.workflow<string>('/once', async (context) => {
      await context.sleep('long', 86_400);
    });
    const first = await w.client().trigger({ url, body: 'a', workflowRunId: 'my-run' });
    expect(first.workflowRunId).toBe('wfr_my-run');
    const trigger = (path: string, body: string) =>
      raw(w.dev, 'POST', path, {
        body,
        headers: {
          'Upstash-Workflow-RunId': 'wfr_my-run',
          'Upstash-Workflow-Init': 'true',
          'Upstash-Workflow-Url': url,
          'Content-Type': 'text/plain',
        },
      });
    const again = await trigger(`/v2/publish/${url}`, 'b');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ deduplicated: true });
    const batch = await raw(w.dev, 'POST', '/v2/batch', {
      body: JSON.stringify([
        { destination: url, headers: { 'Upstash-Workflow-RunId': 'wfr_my-run', 'Upstash-Workflow-Init': 'true' }, body: 'c' },
      ]),
    });
    expect(batch.body).toEqual([expect.objectContaining({ deduplicated: true })]);
    expect((await w.client().logs({ workflowRunId: 'wfr_my-run' })).runs).toHaveLength(1);
    await w.client().cancel({ ids: 'wfr_my-run' });
    await w.runEnded('wfr_my-run', 'RUN_CANCELED');
    const step = await raw(w.dev, 'POST', `/v2/publish/${url}`, {
      body: '{"stepId":2}',
      headers: { 'Upstash-Workflow-RunId': 'wfr_my-run', 'Upstash-Workflow-Init': 'false' },
    });
    // The service's own words (its doubled "a" too), which the 0.2 SDK suites compare; a batch lists them.
    expect(step.status).toBe(400);
    expect(step.body).toEqual({ error: 'failed to publish to url: can not append to a a cancelled workflow' });
    const batchedStep = await raw(w.dev, 'POST', '/v2/batch', {
      body: JSON.stringify(
        [2, 3].map((stepId) => ({
          destination: url,
          headers: { 'Upstash-Workflow-RunId': 'wfr_my-run', 'Upstash-Workflow-Init': 'false' },
          body: `{"stepId":${stepId}}`,
        })),
      ),
    });
    expect(batchedStep.status).toBe(400);
    const refusal = { error: 'failed to publish to url: can not append to a a cancelled workflow' };
    expect(batchedStep.body).toEqual([refusal, refusal]);
  });
});
