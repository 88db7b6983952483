import { parseDestination } from '../http/enqueue-target';
import { readEnqueueSettings } from '../http/enqueue-settings';
import { headerSource } from '../state/header-values';
import { accept, deliverable } from '../http/sending';
import type { ServerContext } from '../http/router';
import type { WorkflowRunRecord } from '../state/records';

// Results the service hands back to a run as one of its steps: an event for a Wait, a webhook call
// for a WaitForWebhook, an invoked run's end for an Invoke. Each goes to the workflow URL as if the
// run had published it, with the headers the SDK gave for that.

/** Publishes `step` to a run's workflow URL with the SDK's headers for it; answers the message id. */
export async function returnStep(
  ctx: ServerContext,
  url: string,
  headers: Record<string, string[]>,
  step: Record<string, unknown>,
  callerIp: string,
): Promise<string> {
  const now = ctx.config.now();
  // The SDK names the run id twice, spelt `RunId` and `Runid`: one name, the later spelling wins.
  const byName = new Map<string, [string, string[]]>();
  for (const [name, values] of Object.entries(headers)) byName.set(name.toLowerCase(), [name, values]);
  const rawHeaders = [...byName.values()].flatMap(([name, values]) => values.flatMap((value) => [name, value]));
  const accepted = await accept(ctx, {
    destination: deliverable(parseDestination(url)),
    queue: undefined,
    settings: readEnqueueSettings(headerSource(rawHeaders), ctx.config.headerPrefix, ctx.plan, now),
    body: Buffer.from(JSON.stringify(step)),
    callerIp,
    now,
  });
  return accepted.results[0]?.messageId ?? '';
}

/** Sends the end of every invoked run to its invoker, as the result of its Invoke step. */
export function answerInvokers(ctx: ServerContext): () => void {
  return ctx.events.subscribe((event) => {
    if (event.type !== 'workflow-run') return;
    const run = ctx.store.state.runs.get(event.runId);
    const invoker = run?.trigger.workflow?.invoker;
    if (!run || !invoker) return;
    returnStep(ctx, invoker.url, invoker.headers, { ...invoker.step, out: JSON.stringify(invokeResult(run)) }, '127.0.0.1').catch(
      (error: unknown) =>
        ctx.events.emit({
          type: 'error',
          message: `the result of run ${run.runId} could not reach run ${invoker.runId}: ${String(error)}`,
        }),
    );
  });
}

/** What `context.invoke` answers: the invoked run's return value, or how it ended without one. */
function invokeResult(run: WorkflowRunRecord): { body?: string; isFailed: boolean; isCanceled: boolean } {
  const result = { isFailed: run.state === 'RUN_FAILED', isCanceled: run.state === 'RUN_CANCELED' };
  const body = run.state === 'RUN_SUCCESS' && run.responseBase64 ? Buffer.from(run.responseBase64, 'base64').toString('utf8') : '';
  return body === '' ? result : { body, ...result };
}
