import { describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { waitUntil } from './helpers/wait';
import { useWorkflowApp, w } from './helpers/workflow-app';

// A run waiting on time, moved on by hand with the vendor's Workflow SDK unchanged, in real time
// (time scale 1, so the day each run waits would really be a day): "wake now" is the service's retry
// now on the sleeping step's message; "time out now" ends a waitForEvent as its timeout would.

useWorkflowApp({ timeScale: 1 });

/** The message ids of the run's steps still waiting for their time, as the run logs show them. */
async function sleepingSteps(runId: string): Promise<string[]> {
  const { runs } = await w.client().logs({ workflowRunId: runId });
  const groups = (runs[0]?.steps ?? []) as Array<{ steps: Array<{ messageId?: string; state?: string; stepType?: string }> }>;
  return groups.flatMap((group) =>
    group.steps.filter((step) => step.state === 'STEP_PROGRESS' && step.stepType === 'SleepFor').map((step) => step.messageId ?? ''),
  );
}

describe('a run waiting on time, moved on now', () => {
  it("wakes a run sleeping for a day through messages.runNow on its sleeping step's message", async () => {
    const url = w.workflow('/sleepy', async (context) => {
      await context.run('before', () => 'a');
      await context.sleep('a day', '1d');
      return await context.run('after', () => 'b');
    });
    const { workflowRunId } = await w.client().trigger({ url, body: 'go' });
    let sleeping: string[] = [];
    await waitUntil(
      async () => {
        sleeping = await sleepingSteps(workflowRunId);
        return sleeping.length === 1;
      },
      'the run asleep',
      20_000,
    );
    await w.dev.messaging.messages.runNow(sleeping[0]!);
    await w.runEnded(workflowRunId, 'RUN_SUCCESS');
    const { runs } = await w.client().logs({ workflowRunId });
    expect(runs[0]?.workflowRunResponse).toBe('"b"');
  });

  it('ends a waitForEvent of a day now as a timeout, through POST /dev/workflows/runs/{id}/time-out', async () => {
    const url = w.workflow('/waiting', async (context) => {
      const { timeout } = await context.waitForEvent('payment', 'order-paid', { timeout: '1d' });
      return await context.run('outcome', () => (timeout ? 'timed out' : 'paid'));
    });
    const { workflowRunId } = await w.client().trigger({ url, body: 'go' });
    await waitUntil(async () => (await w.client().getWaiters({ eventId: 'order-paid' })).length === 1, 'the run waiting', 20_000);
    const readOnly = await raw(w.dev, 'POST', `/dev/workflows/runs/${workflowRunId}/time-out`, { token: w.dev.server.readOnlyToken });
    expect(readOnly.status).toBe(403);
    const answer = await raw(w.dev, 'POST', `/dev/workflows/runs/${workflowRunId}/time-out`);
    expect([answer.status, answer.body]).toEqual([200, { timedOut: 1 }]);
    await w.runEnded(workflowRunId, 'RUN_SUCCESS');
    expect((await w.client().logs({ workflowRunId })).runs[0]?.workflowRunResponse).toBe('"timed out"');
    expect(await w.client().getWaiters({ eventId: 'order-paid' })).toEqual([]);
    const again = await raw(w.dev, 'POST', `/dev/workflows/runs/${workflowRunId}/time-out`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: expect.stringMatching(/is not waiting for an event, a webhook or an invoked run/) });
  });

  it("resends a run's trigger, edited, as a new run, and refuses to send one of its steps on its own", async () => {
    const url = w.workflow<string>('/greet', async (context) => await context.run('greet', () => `hello ${context.requestPayload}`));
    const { workflowRunId } = await w.client().trigger({ url, body: 'ada' });
    await w.runEnded(workflowRunId, 'RUN_SUCCESS');
    const { runs } = await w.client().logs({ workflowRunId });
    const groups = runs[0]!.steps as Array<{ steps: Array<{ messageId: string }> }>;
    const trigger = groups[0]!.steps[0]!.messageId;
    const step = groups.at(-1)!.steps[0]!.messageId;
    const answer = await raw(w.dev, 'POST', `/dev/messages/${trigger}/resend`, { body: JSON.stringify({ body: 'grace' }) });
    expect(answer.status).toBe(200);
    const [ended] = await w.dev.waitForEvents(
      'workflow-run',
      1,
      (event) => event.runId !== workflowRunId && event.state === 'RUN_SUCCESS',
      20_000,
    );
    expect((await w.client().logs({ workflowRunId: ended!.runId })).runs[0]?.workflowRunResponse).toBe('"hello grace"');
    const refused = await raw(w.dev, 'POST', `/dev/messages/${step}/resend`);
    expect([refused.status, (refused.body as { error: string }).error]).toEqual([400, expect.stringMatching(/cannot be sent on its own/)]);
  });
});
