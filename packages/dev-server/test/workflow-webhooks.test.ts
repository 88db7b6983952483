import { Client as WorkflowClient } from '@upstash/workflow';
import { describe, expect, it } from 'vitest';
import { raw } from './helpers/raw';
import { waitUntil } from './helpers/wait';
import { useWorkflowApp, w } from './helpers/workflow-app';

// A run's webhook URL (`context.createWebhook`) is public: its event id, made by the SDK, is its only
// secret. Only that exact URL reaches the run, only its wait for the webhook, within a bound, and
// the read-only token never sees the URL.

useWorkflowApp();

/** Whether `secret` is anywhere in `value`: in a string, or in base64 text inside it, however nested. */
function holds(value: unknown, secret: string, depth = 0): boolean {
  if (typeof value === 'string') {
    if (value.includes(secret)) return true;
    if (depth < 4 && value.length >= 16 && /^[A-Za-z0-9+/]+={0,2}$/.test(value)) {
      return holds(Buffer.from(value, 'base64').toString('utf8'), secret, depth + 1);
    }
    if (depth < 4 && /^[[{]/.test(value)) {
      try {
        return holds(JSON.parse(value), secret, depth + 1);
      } catch {
        return false;
      }
    }
    return false;
  }
  if (Array.isArray(value)) return value.some((item) => holds(item, secret, depth));
  if (value !== null && typeof value === 'object') return Object.values(value).some((item) => holds(item, secret, depth));
  return false;
}

async function hookRun() {
  const shared: { webhookUrl?: string; eventId?: string } = {};
  const url = w.workflow<string>('/hooks', async (context) => {
    const webhook = await context.createWebhook('hook');
    await context.run('share', () => {
      shared.webhookUrl = webhook.webhookUrl;
      shared.eventId = webhook.eventId;
    });
    const paid = await context.waitForEvent('order paid', 'order-paid', { timeout: '1d' });
    const call = await context.waitForWebhook('callback', webhook, '1d');
    return { paid: paid.eventData, timeout: paid.timeout, call: await call.request?.text() };
  });
  const { workflowRunId } = await w.client().trigger({ url, body: 'start' });
  await waitUntil(
    async () => (await w.client().getWaiters({ eventId: 'order-paid' })).length === 1,
    'the run waiting for order-paid',
    20_000,
  );
  return { runId: workflowRunId, webhookUrl: shared.webhookUrl!, eventId: shared.eventId! };
}

describe("a run's webhook", () => {
  it('answers only the exact URL the run issued: another event id, even that of a waitForEvent, is 404 and ends nothing', async () => {
    const { runId, webhookUrl, eventId } = await hookRun();
    const base = webhookUrl.slice(0, -eventId.length);
    expect(base).toBe(`${w.dev.server.url}/v2/workflows/hooks/${base.split('/').at(-3)}/${runId}/`);
    for (const guess of ['order-paid', 'evt_guessed', `${eventId}x`, eventId.toUpperCase()]) {
      const answer = await fetch(`${base}${guess}`, { method: 'POST', body: 'attacker' });
      expect([guess, answer.status]).toEqual([guess, 404]);
      expect(await answer.json()).toEqual({ error: 'no such webhook' });
    }
    expect((await fetch(base, { method: 'POST', body: 'attacker' })).status).toBe(404);
    // The waitForEvent still waits, and no call was kept for any of those ids.
    expect(await w.client().getWaiters({ eventId: 'order-paid' })).toHaveLength(1);
    await w.client().notify({ eventId: 'order-paid', eventData: { paid: true } });
    const called = await fetch(webhookUrl, { method: 'POST', body: 'the real call' });
    expect(called.status).toBe(200);
    await w.runEnded(runId, 'RUN_SUCCESS');
    const [log] = (await w.client().logs({ workflowRunId: runId })).runs;
    expect(JSON.parse(log!.workflowRunResponse!)).toEqual({ paid: { paid: true }, timeout: false, call: 'the real call' });
    // Once the run ended, its webhook is gone.
    expect((await fetch(webhookUrl, { method: 'POST', body: 'late' })).status).toBe(404);
  });

  it('keeps calls made before the run waits within a bound per run (429 past it, 413 for one too large), then frees them', async () => {
    const { runId, webhookUrl } = await hookRun();
    const tooLarge = await fetch(webhookUrl, { method: 'POST', body: 'x'.repeat(1_048_577) });
    expect(tooLarge.status).toBe(413);
    for (let index = 0; index < 64; index += 1) {
      const answer = await fetch(webhookUrl, { method: 'POST', body: `early ${index}` });
      expect([index, answer.status]).toEqual([index, 200]);
    }
    const over = await fetch(webhookUrl, { method: 'POST', body: 'one too many' });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    expect(((await over.json()) as { error: string }).error).toMatch(/already holds 64 events it has not waited for yet/);
    // The run takes the oldest stored call when it waits for the webhook.
    await w.client().notify({ eventId: 'order-paid', eventData: 'paid' });
    await w.runEnded(runId, 'RUN_SUCCESS');
    const [log] = (await w.client().logs({ workflowRunId: runId })).runs;
    expect(JSON.parse(log!.workflowRunResponse!).call).toBe('early 0');
  });

  it('is never shown to the read-only token, which could otherwise write through it', async () => {
    const { runId, eventId } = await hookRun();
    const readOnly = new WorkflowClient({ baseUrl: w.dev.server.url, token: w.dev.server.readOnlyToken });
    const full = w.client();
    // The full token sees the URL where the SDK published it; the read-only token sees REDACTED there.
    expect(holds(await full.logs({ workflowRunId: runId }), eventId)).toBe(true);
    const logs = await readOnly.logs({ workflowRunId: runId });
    expect(holds(logs, eventId)).toBe(false);
    expect(JSON.stringify(logs)).toContain('REDACTED');
    for (const path of [`/v2/workflows/runs/${runId}`, '/v2/events', '/v2/workflows/events', `/v2/waiters/order-paid`]) {
      const answer = await raw(w.dev, 'GET', path, { token: w.dev.server.readOnlyToken });
      expect([path, answer.status]).toEqual([path, 200]);
      expect([path, holds(answer.body, eventId)]).toEqual([path, false]);
    }
    expect(holds((await raw(w.dev, 'GET', `/v2/workflows/runs/${runId}`, {})).body, eventId)).toBe(true);
  });
});

describe('POST /v2/wait', () => {
  it('refuses a URL or timeout URL that is not http(s), like every destination', async () => {
    for (const [url, timeoutUrl] of [
      ['javascript:alert(1)', undefined],
      ['http://127.0.0.1:9/wf', 'file:///etc/passwd'],
      ['ftp://example.com/', undefined],
    ]) {
      const answer = await raw(w.dev, 'POST', '/v2/wait/evt-x', {
        headers: { 'Upstash-Workflow-RunId': 'wfr_x' },
        body: JSON.stringify({ url, timeoutUrl, timeout: '1s', step: { stepId: 1, stepType: 'Wait', stepName: 'w' } }),
      });
      expect([url, answer.status]).toEqual([url, 400]);
      expect((answer.body as { error: string }).error).toMatch(/invalid wait( timeout)? url: endpoint has invalid scheme/);
    }
    expect(await w.client().getWaiters({ eventId: 'evt-x' })).toEqual([]);
  });
});
