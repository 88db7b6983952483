import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient, serve, type RouteFunction } from '@upstash/workflow';
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunFixture } from '../src/internal-embedded';
import { useBrowser } from './helpers/browser';
import { startTestServer, type TestServer } from './helpers/test-server';

// The console's Workflows view in headless Chromium, with runs of the vendor's Workflow SDK: a run
// shown step by step, released from its wait with the Notify form, resumed after a failure, and
// cancelled while it sleeps, all from the page.

const browser = useBrowser();
let dev: TestServer;
let app: Server;
let appUrl: `http://127.0.0.1:${number}`;
let page: Page;
const routes = new Map<string, (request: Request) => Promise<Response>>();

beforeEach(async () => {
  dev = await startTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash', timeScale: 0.001 });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const handler = routes.get(req.url ?? '');
      if (!handler) return void res.writeHead(404).end();
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = Buffer.concat(chunks);
      const response = await handler(new Request(`${appUrl}${req.url}`, { method: 'POST', headers, ...(body.length ? { body } : {}) }));
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  page = await browser().newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(dev.server.consoleUrl);
  await page.getByRole('heading', { name: 'Messages' }).waitFor();
});
afterEach(async () => {
  await page?.close();
  app.closeAllConnections();
  await new Promise((resolve) => app.close(resolve));
  await dev.close();
  routes.clear();
});

function workflow<T>(path: string, route: RouteFunction<T, unknown>): string {
  const { handler } = serve<T>(route, {
    qstashClient: new QStashClient({ baseUrl: dev.server.url, token: dev.server.token }),
    receiver: new Receiver({ currentSigningKey: dev.server.currentSigningKey, nextSigningKey: dev.server.nextSigningKey }),
    url: `${appUrl}${path}`,
    disableTelemetry: true,
  });
  routes.set(path, handler);
  return `${appUrl}${path}`;
}

const trigger = (url: string, body: unknown) =>
  new WorkflowClient({ baseUrl: dev.server.url, token: dev.server.token }).trigger({ url, body, retries: 0 });

describe('the Workflows view of the console', () => {
  it('shows a run step by step, notifies its wait from the page, and resumes it from its failed step', async () => {
    let broken = true;
    const url = workflow<{ orderId: string }>('/checkout', async (context) => {
      const order = await context.run('reserve stock', () => ({ orderId: context.requestPayload.orderId, reserved: true }));
      const [a, b] = await Promise.all([context.run('email', () => 'sent'), context.run('invoice', () => 'issued')]);
      await context.sleep('cool down', 1);
      const { eventData } = await context.waitForEvent('approval', `approve-${order.orderId}`, { timeout: '1d' });
      await context.run('charge', () => {
        if (broken) throw new Error('the payment provider is down');
        return { charged: true, approvedBy: eventData, a, b };
      });
      return 'paid';
    });
    const { workflowRunId } = await trigger(url, { orderId: 'o-7' });
    await page.getByRole('link', { name: 'Workflows' }).click();
    const row = page.locator(`tr[data-run-id="${workflowRunId}"]`);
    await row.getByText('RUN_STARTED').waitFor();
    await row.getByRole('link').click();
    const run = page.locator('aside.detail');
    // The wait, with its event id and a form to notify it.
    const waiting = run.locator('.waiting[data-event-id="approve-o-7"]');
    await waiting.waitFor();
    await expect(run.locator('.step[data-step-name="reserve stock"] pre').textContent()).resolves.toContain('"reserved": true');
    // Parallel branches side by side, in one group.
    await expect(
      run.locator('.parallel .step').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-step-name'))),
    ).resolves.toEqual(['email', 'invoice']);
    await expect(run.locator('.step[data-step-type="SleepFor"]').textContent()).resolves.toContain('Sleeps 1 s');
    await waiting.locator('textarea').fill('{"by":"ada"}');
    await waiting.getByRole('button', { name: 'Notify' }).click();
    await run.getByText('Notified 1 waiter').waitFor();
    // The charge fails for good: the run is failed, and offers resume and restart.
    await run.locator('h2').getByText('RUN_FAILED').waitFor();
    await expect(run.locator('.step[data-step-type="Wait"]').textContent()).resolves.toMatch(/notified[\s\S]*"by": "ada"/);
    // The step that threw is named and shown first, with its error; the wait it came after succeeded.
    const failed = run.locator('.step.next.failed[data-step-name="charge"]');
    await failed.waitFor();
    await expect(failed.locator('.error-detail p').textContent()).resolves.toContain('the payment provider is down');
    await expect(failed.locator('.stack').textContent()).resolves.toMatch(/\n\s*at /);
    await expect(failed.textContent()).resolves.toContain('failed after 1 attempt');
    await expect(run.locator('.step[data-step-type="Wait"]').getByText('STEP_SUCCESS').count()).resolves.toBe(1);
    await expect(run.locator('.step:not(.next)').getByText('STEP_FAILED').count()).resolves.toBe(0);
    broken = false;
    await run.getByRole('button', { name: 'Resume' }).click();
    // Resume is a new run, opened at once, that says which run it resumes; the failed run stays failed.
    const resumed = page.locator('aside.detail');
    await resumed.locator('dt').getByText('Resumes').waitFor();
    await resumed.locator('h2').getByText('RUN_SUCCESS').waitFor();
    await expect(resumed.locator('dd pre').textContent()).resolves.toBe('"paid"');
    await expect(resumed.locator('.step[data-step-name="charge"] pre').textContent()).resolves.toContain('"approvedBy"');
    await expect(page.locator(`tr[data-run-id="${workflowRunId}"]`).getByText('RUN_FAILED').count()).resolves.toBe(1);
    await expect(resumed.locator('.run-timeline li').first().textContent()).resolves.toMatch(
      new RegExp(`Started, resuming ${workflowRunId} from its failed step`),
    );
    // The failed run's page tells what happened to it, and links the run it went on as.
    await resumed.locator('.run-timeline a', { hasText: workflowRunId }).click();
    const original = page.locator('aside.detail');
    await original.locator('h2').getByText('RUN_FAILED').waitFor();
    const resumedAs = original.locator('.run-timeline li[data-kind="resumed"]');
    await resumedAs.waitFor();
    await expect(original.locator('.run-timeline li[data-kind="dead-lettered"]').textContent()).resolves.toMatch(
      /failed for good \(answered 500\) and went to the DLQ/,
    );
    await expect(resumedAs.textContent()).resolves.toMatch(/Resumed from its failed step msg_[\w-]+ as run wfr_/);
  });

  it('cancels a sleeping run from its page after asking, and no later step runs', async () => {
    const after: string[] = [];
    const url = workflow<string>('/sleeper', async (context) => {
      await context.sleep('a long nap', 86_400);
      await context.run('after', () => void after.push('ran'));
    });
    const { workflowRunId } = await trigger(url, 'x');
    await page.goto(`${dev.server.url}/console/#/workflows/${workflowRunId}`);
    const run = page.locator('aside.detail');
    await run.locator('.step[data-step-type="SleepFor"]').getByText(/until/).waitFor();
    await run.getByRole('button', { name: 'Cancel run' }).click();
    await run.getByRole('alertdialog').getByRole('button', { name: 'Yes' }).click();
    await run.locator('h2').getByText('RUN_CANCELED').waitFor();
    await expect(page.locator(`tr[data-run-id="${workflowRunId}"]`).getByText('RUN_CANCELED').count()).resolves.toBe(1);
    expect(after).toEqual([]);
  });

  it('wakes a run sleeping for a day and times out a run waiting a day for an event, each with a button on its page', async () => {
    const url = workflow<string>('/nap', async (context) => {
      await context.sleep('a long nap', 86_400);
      const { timeout } = await context.waitForEvent('payment', 'paid', { timeout: '1d' });
      return await context.run('outcome', () => (timeout ? 'timed out' : 'paid'));
    });
    const { workflowRunId } = await trigger(url, 'x');
    await page.goto(`${dev.server.url}/console/#/workflows/${workflowRunId}`);
    const run = page.locator('aside.detail');
    const sleep = run.locator('.step[data-step-type="SleepFor"]');
    await sleep.getByText(/until/).waitFor();
    await sleep.getByRole('button', { name: 'Wake now' }).click();
    await page.getByRole('status').getByText('Woke the run: "a long nap" ends now').waitFor();
    const waiting = run.locator('.waiting[data-event-id="paid"]');
    await waiting.waitFor();
    await waiting.getByRole('button', { name: 'Time out now' }).click();
    await run.locator('h2').getByText('RUN_SUCCESS').waitFor();
    await expect(run.locator('dd pre').first().textContent()).resolves.toBe('"timed out"');

    // Export fixture: the run as @mailroom/testing's replay reads it, the wait's timeout in it.
    const download = page.waitForEvent('download');
    await run.getByRole('button', { name: 'Export fixture' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`${workflowRunId}.fixture.json`);
    const saved = JSON.parse(readFileSync((await file.path())!, 'utf8')) as RunFixture;
    expect(saved.run).toMatchObject({ workflowRunId, url });
    expect(saved.events).toEqual([{ eventId: 'paid', timedOut: true }]);
    expect(saved.steps.map((step) => step.stepType)).toEqual(['SleepFor', 'Wait', 'Run']);
  });

  it("names each step message's run and step in Messages, links the run, and filters to a run or hides steps", async () => {
    const url = workflow<string>('/steps', async (context) => {
      await context.run('charge card', () => 'charged');
      await context.run('send receipt', () => 'sent');
    });
    const { workflowRunId } = await trigger(url, 'x');
    await dev.waitForEvents('workflow-run', 1, (event) => event.runId === workflowRunId && event.state === 'RUN_SUCCESS', 20_000);
    const plain = await dev.messaging.publish({ destination: `${appUrl}/not-a-workflow`, body: 'plain' });
    const rows = page.locator('tbody tr[data-message-id]');
    await page.locator(`tr[data-message-id="${plain.messageId}"]`).waitFor();
    await page.locator('.run-step').getByText('charge card (Run)').waitFor();
    await page.locator('.run-step').getByText('trigger').waitFor();
    await page.locator('input[name="run"]').fill(workflowRunId);
    await page.locator(`tr[data-message-id="${plain.messageId}"]`).waitFor({ state: 'detached' });
    const runRows = await rows.count();
    expect(runRows).toBeGreaterThanOrEqual(3);
    await expect(page.locator('.run-step a').allTextContents()).resolves.toEqual(Array(runRows).fill(workflowRunId));
    await page.locator('input[name="run"]').fill('');
    await page.getByLabel('Workflow steps').uncheck();
    // The server filters: the step rows go when its page arrives.
    await page.locator('.run-step').first().waitFor({ state: 'detached' });
    await expect(rows.count()).resolves.toBe(1);
    await page.getByLabel('Workflow steps').check();
    await page.locator('.run-step a').first().click();
    await page.locator('aside.detail h2').getByText('RUN_SUCCESS').waitFor();
    expect(page.url()).toContain(`#/workflows/${workflowRunId}`);
    // The runs list is filtered by the service: by run id, and by state.
    const runRowsShown = page.locator('tr[data-run-id]');
    await page.locator('input[name="run-id"]').fill(workflowRunId);
    await page.locator(`tr[data-run-id]:not([data-run-id="${workflowRunId}"])`).first().waitFor({ state: 'detached' });
    await expect(runRowsShown.count()).resolves.toBe(1);
    await page.locator('input[name="run-id"]').fill('');
    await page.getByLabel('Run state').selectOption('RUN_CANCELED');
    await page.locator(`tr[data-run-id="${workflowRunId}"]`).waitFor({ state: 'detached' });
    // The run asked for stays on its page when the list no longer shows it.
    await page.locator('aside.detail h2').getByText('RUN_SUCCESS').waitFor();
    await expect(page.locator('tr[data-run-id] td:nth-child(2)').allTextContents()).resolves.toEqual(
      Array(await runRowsShown.count()).fill('RUN_CANCELED'),
    );
  });
});
