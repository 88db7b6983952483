import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, ValidationError } from '@mailroom/core';
import { handleNodeRequest, writeOutbound } from '@mailroom/core/adapter';
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { always, failTimes, startDestination, type TestDestination } from './helpers/destination';
import { useBrowser } from './helpers/browser';
import { startTestServer, type TestServer } from './helpers/test-server';

// The console in a real browser (headless Chromium): what a developer sees and clicks. Messages sent
// through the API appear without a reload; actions change what the page shows; a page on another
// origin cannot act; the send form refuses bad input with the client's own messages.

const browser = useBrowser();
let server: TestServer;
let destination: TestDestination;
let page: Page;

beforeEach(async () => {
  server = await startTestServer({ timeScale: 0.01 });
  destination = await startDestination();
  page = await browser().newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.server.consoleUrl);
  await page.getByRole('heading', { name: 'Messages' }).waitFor();
});
afterEach(async () => {
  await page?.close();
  await server.close();
  await destination.close();
});

describe('the dev console', () => {
  it('takes the token from the link, then drops it from the address bar', async () => {
    expect(page.url()).not.toContain('token=');
    expect(page.url()).toMatch(/#\/messages$/);
  });

  it('shows a message sent through the API without a reload (the list polls every second), and its timeline attempt by attempt', async () => {
    destination.script('/orders', failTimes(1));
    const { messageId } = await server.messaging.publishJSON({
      destination: `${destination.url}/orders`,
      body: { orderId: 'o-1' },
      retries: 2,
    });
    const row = page.locator(`tr[data-message-id="${messageId}"]`);
    await row.waitFor();
    await row.getByText('DELIVERED').waitFor();
    await row.getByRole('link').click();
    const detail = page.locator('aside.detail');
    await detail.waitFor();
    // The panel opens before its story arrives (a request of its own): read the attempts once both are shown.
    await detail.locator('.attempt summary').nth(1).waitFor();
    await expect(detail.locator('.attempt summary').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^Attempt 1: answered 500 in \d+ ms$/),
      expect.stringMatching(/^Attempt 2: answered 200 in \d+ ms$/),
    ]);
    await expect(detail.locator('.timeline').first().textContent()).resolves.toMatch(/next attempt at .* chosen by the default backoff/);
    await detail.locator('.attempt summary').first().click();
    await expect(detail.getByText('Signature claims').first().isVisible()).resolves.toBe(true);
    await expect(detail.locator('pre.body').first().textContent()).resolves.toContain('"orderId": "o-1"');
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
  });

  it('retries a DLQ entry from the page: the entry leaves and the new message is delivered', async () => {
    destination.script('/dead', failTimes(1));
    await server.messaging.publish({ destination: `${destination.url}/dead`, body: 'x', retries: 0 });
    await server.waitForEvents('dlq', 1);
    await page.getByRole('link', { name: 'DLQ' }).click();
    const entry = page.locator('tr[data-dlq-id]');
    await entry.waitFor();
    await entry.getByRole('button', { name: 'Retry' }).click();
    await page
      .getByRole('status')
      .getByText(/Retried as msg_/)
      .waitFor();
    await entry.waitFor({ state: 'detached' });
    await destination.waitFor('/dead', 2);
  });

  it('acts on a failed run from the DLQ: its run page linked, Resume, Restart, Retry failure function (shown succeeding) and Delete', async () => {
    destination.script('/step', always(500));
    destination.script('/on-failure', failTimes(1));
    await server.messaging.publish({
      destination: `${destination.url}/step`,
      body: 'x',
      retries: 0,
      failureCallback: { url: `${destination.url}/on-failure`, retries: 0 },
      workflow: { runId: 'wfr_console', url: `${destination.url}/step` },
    });
    await server.waitForEvents('failure-callback-state', 1, (event) => event.state === 'CALLBACK_FAIL');
    await page.getByRole('link', { name: 'DLQ' }).click();
    await page.getByRole('tab', { name: /Workflow runs/ }).click();
    const row = page.locator('tr[data-dlq-id]');
    await row.getByText('CALLBACK_FAIL').waitFor();
    await expect(row.getByRole('link', { name: 'wfr_console' }).getAttribute('href')).resolves.toBe('#/workflows/wfr_console');
    await expect(row.getByRole('button').allTextContents()).resolves.toEqual(['Resume', 'Restart', 'Retry failure function', 'Delete']);
    await row.getByRole('button', { name: 'Retry failure function' }).click();
    await row.getByText('CALLBACK_SUCCESS').waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('alertdialog').getByRole('button', { name: 'Yes' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await server.messaging.workflowDlq.list()).messages).toEqual([]);
  });

  it('asks before emptying the DLQ and before rotating the keys, and does nothing on Cancel', async () => {
    destination.script('/dead', always(500));
    await server.messaging.publish({ destination: `${destination.url}/dead`, body: 'x', retries: 0 });
    await server.waitForEvents('dlq', 1);
    await page.getByRole('link', { name: 'DLQ' }).click();
    await page.locator('tr[data-dlq-id]').waitFor();
    await page.getByRole('button', { name: 'Delete all' }).click();
    const ask = page.getByRole('alertdialog');
    await expect(ask.textContent()).resolves.toContain('Delete all 1 DLQ entries? They cannot be retried afterwards.');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect((await server.messaging.dlq.list()).messages).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete all' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes' }).click();
    await page.locator('tr[data-dlq-id]').waitFor({ state: 'detached' });
    expect((await server.messaging.dlq.list()).messages).toHaveLength(0);

    const before = await server.messaging.signingKeys.get();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Rotate signing keys' }).click();
    const rotate = page.getByRole('alertdialog');
    await expect(rotate.textContent()).resolves.toMatch(/keep verifying after one rotation, not after two.*dev mode/);
    await rotate.getByRole('button', { name: 'Cancel' }).click();
    expect(await server.messaging.signingKeys.get()).toEqual(before);
    await page.getByRole('button', { name: 'Rotate signing keys' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes' }).click();
    await page.locator('pre[data-env]').getByText(`MAILROOM_CURRENT_SIGNING_KEY=${before.next}`).waitFor();
    expect((await server.messaging.signingKeys.get()).current).toBe(before.next);
  });

  it('links the ids a notice names, keeps a notice to its tab, and offers no retry for a message no longer in the DLQ', async () => {
    destination.script('/gone', always(500));
    await server.messaging.publish({ destination: `${destination.url}/gone`, body: 'x', retries: 0 });
    await server.waitForEvents('dlq', 1);
    await page.getByRole('link', { name: 'DLQ' }).click();
    await page.locator('tr[data-dlq-id]').getByRole('button', { name: 'Retry' }).click();
    const notice = page.getByRole('status');
    await notice.getByText(/Retried as msg_/).waitFor();
    expect(await notice.getByRole('link').textContent()).toMatch(/^msg_/);
    // The notice belongs to the tab it was given in.
    await page.getByRole('tab', { name: /Workflow runs/ }).click();
    await expect(page.getByRole('status').count()).resolves.toBe(0);

    // A failed message's own page: Retry from DLQ while its entry is there, then a plain sentence.
    const { messageId } = await server.messaging.publish({ destination: `${destination.url}/gone`, body: 'y', retries: 0 });
    await server.waitForEvents('dlq', 1, (event) => event.messageId === messageId);
    await page.getByRole('link', { name: 'Messages' }).click();
    await page.locator(`tr[data-message-id="${messageId}"]`).getByRole('link').click();
    const detail = page.locator('aside.detail');
    await detail.getByRole('button', { name: 'Retry from DLQ' }).click();
    await detail
      .getByRole('status')
      .getByText(/Retried as msg_/)
      .waitFor();
    await detail.getByText('Not in the DLQ any more (retried, deleted or expired).').waitFor();
    await expect(detail.getByRole('button', { name: 'Retry from DLQ' }).count()).resolves.toBe(0);
  });

  it('filters the logs, shows schedule times with their zone, and labels the chart’s axes', async () => {
    destination.script('/mixed', failTimes(1));
    await server.messaging.publish({ destination: `${destination.url}/mixed`, body: 'x', retries: 1 });
    await server.waitForEvents('delivered', 1);
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.locator('tr[data-log-state="DELIVERED"]').waitFor();
    await page.getByLabel('State').selectOption('ERROR');
    await page.locator('tr[data-log-state="DELIVERED"]').waitFor({ state: 'detached' });
    await expect(
      page.locator('tr[data-log-state]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-log-state'))),
    ).resolves.toEqual(['ERROR']);

    await server.messaging.schedules.create({ destination: `${destination.url}/later`, cron: '0 0 1 1 *' });
    await page.getByRole('link', { name: 'Schedules' }).click();
    const next = await page.locator('tr[data-schedule] td').nth(3).textContent();
    // Chromium here runs in UTC: the zone is written out.
    expect(next).toMatch(/UTC|GMT/);

    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.locator('svg.chart').waitFor();
    // Counts from 0 up to the busiest minute's (1 or 2 here: the two attempts may fall in one minute or two).
    const counts = (await page.locator('svg.chart text[data-axis="y"]').allTextContents()).map(Number);
    expect(counts[0]).toBe(0);
    expect(counts.at(-1)).toBeGreaterThanOrEqual(1);
    expect(counts).toEqual([...new Set(counts)].sort((a, b) => a - b));
    await expect(page.locator('svg.chart text[data-axis="x"]').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^\d\d:\d\d$/),
      expect.stringMatching(/^\d\d:\d\d$/),
      expect.stringMatching(/^\d\d:\d\d$/),
    ]);
  });

  it('pauses and resumes a queue from the page', async () => {
    await server.messaging.queues.upsert({ name: 'held', paused: true });
    await server.messaging.enqueue({ queue: 'held', destination: `${destination.url}/held`, body: 'x' });
    await page.getByRole('link', { name: 'Queues' }).click();
    const row = page.locator('tr[data-queue="held"]');
    await row.getByText('PAUSED').waitFor();
    await row.getByRole('button', { name: 'Resume' }).click();
    await destination.waitFor('/held', 1);
    await row.getByText('ACTIVE').waitFor();
  });

  it('refuses what the send form is given wrong with the same message as the client, and sends what is right', async () => {
    await page.getByRole('link', { name: 'Send' }).click();
    await page.getByLabel('Destination').fill('app.test/orders');
    await page.getByLabel('Retries').fill('-1');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const refused = page.locator('[data-result="refused"]');
    await refused.waitFor();
    const expected = await server.messaging.publish({ destination: 'app.test/orders', retries: -1 }).catch((error: unknown) => error);
    expect(expected).toBeInstanceOf(ValidationError);
    await expect(refused.textContent()).resolves.toBe((expected as Error).message);

    await page.getByLabel('Destination').fill(`${destination.url}/from-form`);
    await page.getByLabel('Retries').fill('1');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('[data-result="sent"]').waitFor();
    const [received] = await destination.waitFor('/from-form', 1);
    expect(JSON.parse(received!.text)).toEqual({ hello: 'world' });
  });

  it('refuses a cross-origin POST from a page on another site', async () => {
    let attacker: Server | undefined;
    try {
      const target = `${server.server.url}/v2/publish/${destination.url}/stolen`;
      // The attacker knows everything but the token; it posts a form and a no-cors fetch with a guess.
      const html = `<!doctype html><form id="f" method="POST" action="${target}" enctype="text/plain"><input name="x" value="1"></form>
        <script>fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: 'x' }).finally(() => document.getElementById('f').submit());</script>`;
      attacker = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
      await new Promise<void>((resolve) => attacker!.listen(0, '127.0.0.1', resolve));
      const evil = await browser().newPage();
      const answers: number[] = [];
      evil.on('response', (response) => {
        if (response.url().startsWith(server.server.url)) answers.push(response.status());
      });
      await evil.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
      await evil.waitForURL(/v2\/publish/);
      await evil.close();
      expect(answers).toContain(403);
      expect(answers.every((status) => status === 403)).toBe(true);
      expect((await server.messaging.logs.list()).events).toEqual([]);
      expect(destination.received('/stolen')).toEqual([]);
    } finally {
      attacker?.close();
    }
  });

  it('asks for the token when opened without one, and refuses a wrong one', async () => {
    const fresh = await browser().newPage();
    try {
      await fresh.goto(`${server.server.url}/console/`);
      await fresh.getByRole('heading', { name: 'Mailroom dev console' }).waitFor();
      await fresh.getByLabel('Token').fill('wrong');
      await fresh.getByRole('button', { name: 'Open the console' }).click();
      await fresh
        .getByRole('alert')
        .getByText(/does not open this dev server/)
        .waitFor();
      await fresh.getByLabel('Token').fill(server.server.token);
      await fresh.getByRole('button', { name: 'Open the console' }).click();
      await fresh.getByRole('heading', { name: 'Messages' }).waitFor();
    } finally {
      await fresh.close();
    }
  });
});

describe('deliver now', () => {
  it('runs a message delayed by an hour now, retries a backing-off one now, and fires a yearly schedule now', async () => {
    const { messageId: delayed } = await server.messaging.publish({ destination: `${destination.url}/later`, body: 'x', delay: '1h' });
    const row = page.locator(`tr[data-message-id="${delayed}"]`);
    await row.waitFor();
    await expect(row.locator('td').nth(5).textContent()).resolves.not.toBe('');
    await row.getByRole('link').click();
    await page.locator('aside.detail').getByRole('button', { name: 'Run now' }).click();
    await row.getByText('DELIVERED').waitFor();
    expect(destination.received('/later')).toHaveLength(1);

    destination.script('/flaky', failTimes(1));
    const { messageId: flaky } = await server.messaging.publish({
      destination: `${destination.url}/flaky`,
      body: 'x',
      retries: 1,
      retryDelay: '3600000',
    });
    await page.goto(`${server.server.consoleUrl.split('#')[0]}#/messages/${flaky}`);
    const detail = page.locator('aside.detail');
    await detail.getByRole('button', { name: 'Retry now' }).click();
    await page.locator(`tr[data-message-id="${flaky}"]`).getByText('DELIVERED').waitFor();
    expect(destination.received('/flaky').map((request) => request.headers['service-retried'])).toEqual(['0', '1']);

    const { scheduleId } = await server.messaging.schedules.create({ destination: `${destination.url}/yearly`, cron: '0 0 1 1 *' });
    await page.getByRole('link', { name: 'Schedules' }).click();
    await page.locator(`tr[data-schedule="${scheduleId}"]`).getByRole('button', { name: 'Fire now' }).click();
    await destination.waitFor('/yearly', 1);
  });
});

describe('bulk actions', () => {
  it('pages the list on the server: 50 rows a page with the total, Older and Newer, and a filter applied there', async () => {
    await server.messaging.batch(
      Array.from({ length: 60 }, (_, index) => ({
        destination: `${destination.url}/paged`,
        // A colon is outside the ids' alphabet: the text searched for cannot turn up in a random message id too.
        body: `page:${index}`,
        delay: '1h' as const,
        label: 'paged',
      })),
    );
    await page.getByLabel('Label').fill('paged');
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await pager.getByText('1–50 of 60').waitFor();
    await expect(page.locator('tr[data-message-id]').count()).resolves.toBe(50);
    await pager.getByRole('button', { name: 'Older' }).click();
    await pager.getByText('51–60 of 60').waitFor();
    await expect(page.locator('tr[data-message-id]').count()).resolves.toBe(10);
    await expect(pager.getByRole('button', { name: 'Older' }).isDisabled()).resolves.toBe(true);
    await pager.getByRole('button', { name: 'Newer' }).click();
    await pager.getByText('1–50 of 60').waitFor();
    await page.getByLabel('Text').fill('page:59');
    await pager.getByText('1–1 of 1').waitFor();
    await page.getByLabel('Text').fill('');
    await page.getByLabel('Label').fill('');
  });

  it('cancels all matching messages by filter in the background, and retries and deletes all matching DLQ entries, each asking first', async () => {
    for (let index = 0; index < 5; index++) {
      await server.messaging.publish({ destination: `${destination.url}/later`, body: `b${index}`, delay: '1h', label: 'bulk' });
    }
    const other = await server.messaging.publish({ destination: `${destination.url}/later`, body: 'keep', delay: '1h', label: 'other' });
    await page.locator(`tr[data-message-id="${other.messageId}"]`).waitFor();
    await page.getByLabel('Label').fill('bulk');
    await page.getByRole('button', { name: 'Cancel all 5 matching' }).click();
    await page.getByRole('alertdialog').getByText('Cancel all 5 matching messages?').waitFor();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes' }).click();
    await page
      .getByRole('status')
      .getByText(/Cancelled 5 messages \(bulk action bulk_\w+\)/)
      .waitFor();
    await expect(server.messaging.messages.get(other.messageId)).resolves.toMatchObject({ messageId: other.messageId });

    destination.script('/down', always(500));
    for (const label of ['a', 'a', 'a', 'b']) {
      await server.messaging.publish({ destination: `${destination.url}/down`, body: label, retries: 0, label });
    }
    await server.waitForEvents('dlq', 4);
    await page.getByRole('link', { name: 'DLQ' }).click();
    await page.locator('input[name="dlq-label"]').fill('a');
    await page.getByRole('button', { name: 'Retry all 3 matching' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes' }).click();
    await page.getByRole('status').getByText('Retried 3 entries as new messages').waitFor();
    await destination.waitFor('/down', 7);
    await page.locator('input[name="dlq-label"]').fill('b');
    await page.getByRole('button', { name: 'Delete all 1 matching' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes' }).click();
    await page.getByRole('status').getByText('Deleted 1 entries').waitFor();
    await server.waitForEvents('dlq', 7);
    expect((await server.messaging.dlq.list()).messages.map((entry) => entry.label).sort()).toEqual(['a', 'a', 'a']);
  });
});

describe('why a delivery was refused', () => {
  it("says which check the app's receiver failed, and names the setting that differs from the server's", async () => {
    const receiver = createReceiver({
      currentSigningKey: server.server.currentSigningKey,
      nextSigningKey: server.server.nextSigningKey,
      issuer: 'Upstash',
      env: { NODE_ENV: 'development' },
      onError: () => {},
    });
    const endpoint = receiver.message(() => {});
    const app = createServer((req, res) => void handleNodeRequest(endpoint, req).then((answer) => writeOutbound(res, answer)));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}` as const;
      const { messageId } = await server.messaging.publish({ destination: `${appUrl}/hook`, body: 'x', retries: 0 });
      await server.waitForEvents('failed', 1, (event) => event.messageId === messageId);
      await page.goto(`${server.server.url}/console/#/messages/${messageId}`);
      const detail = page.locator('aside.detail');
      await detail.locator('.attempt summary').first().click();
      const refusal = detail.locator('.refusal');
      await refusal.getByText('The app expects another issuer than "Service", the one this server signs with.').waitFor();
      await expect(refusal.textContent()).resolves.toContain('Set MAILROOM_ISSUER=Service for the app');
    } finally {
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
    }
  });
});

describe('faults on demand', () => {
  it('sets a fault from its page, names it in a banner on every page, applies it, and removes it', async () => {
    await page.getByRole('link', { name: 'Faults' }).click();
    await page.locator('select[name="kind"]').selectOption('duplicate');
    await page.getByLabel('To (path or URL)').fill('/orders');
    await page.getByRole('button', { name: 'Set fault' }).click();
    await page
      .getByRole('status')
      .getByText(/Set flt_\w+: duplicate deliveries to \/orders, applied 0×/)
      .waitFor();
    await page.getByRole('link', { name: 'Messages' }).click();
    const banner = page.getByRole('status', { name: 'Faults in force' });
    await banner.getByText(/1 fault in force:/).waitFor();
    await server.messaging.publish({ destination: `${destination.url}/orders`, body: 'x' });
    await destination.waitFor('/orders', 2);
    await banner.getByText('duplicate deliveries to /orders, applied 1×').waitFor();
    await banner.getByRole('link', { name: 'Manage faults' }).click();
    await page.locator('tr[data-fault-id]').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No fault in force').waitFor();
    await banner.waitFor({ state: 'detached' });
    await page.locator('select[name="kind"]').selectOption('throttle');
    await page.getByLabel('Times').fill('0');
    await page.getByRole('button', { name: 'Set fault' }).click();
    await page.getByText(/invalid fault times 0/).waitFor();
  });
});

describe('export fixture', () => {
  it('downloads the message with its attempts, the file @mailroom/testing replays', async () => {
    const { messageId } = await server.messaging.publish({
      destination: `${destination.url}/fixture-me`,
      body: 'recorded',
      contentType: 'text/plain',
    });
    await destination.waitFor('/fixture-me', 1);
    await page.goto(`${server.server.url}/console/#/messages/${messageId}`);
    const download = page.waitForEvent('download');
    await page.locator('aside.detail').getByRole('button', { name: 'Export fixture' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`${messageId}.fixture.json`);
    const saved = JSON.parse(readFileSync((await file.path())!, 'utf8')) as {
      fixture: number;
      message: { bodyBase64: string };
      attempts: unknown[];
    };
    expect(saved.fixture).toBe(1);
    expect(Buffer.from(saved.message.bodyBase64, 'base64').toString()).toBe('recorded');
    expect(saved.attempts).toEqual([expect.objectContaining({ retried: 0, status: 200 })]);
    await page
      .getByRole('status')
      .getByText(/service\.replay\(fixture\)/)
      .waitFor();
  });
});

describe('replay', () => {
  it('sends the same body and settings again as a new message on the same queue', async () => {
    const { messageId } = await server.messaging.enqueue({
      queue: 'replays',
      destination: `${destination.url}/again`,
      body: 'same body',
      contentType: 'text/plain',
      retries: 2,
      callback: `${destination.url}/cb`,
      headers: { 'X-Tenant': 'acme' },
    });
    await destination.waitFor('/again', 1);
    await page.goto(`${server.server.url}/console/#/messages/${messageId}`);
    await page.locator('aside.detail').getByRole('button', { name: 'Replay' }).click();
    await page
      .getByRole('status')
      .getByText(/Replayed as msg_/)
      .waitFor();
    const [first, second] = await destination.waitFor('/again', 2);
    expect(second!.text).toBe('same body');
    expect(second!.headers['content-type']).toBe('text/plain');
    expect(second!.headers['x-tenant']).toBe('acme');
    expect(second!.headers['service-message-id']).not.toBe(first!.headers['service-message-id']);
    const replayed = String(second!.headers['service-message-id']);
    const created = (await server.messaging.logs.list({ messageId: replayed, state: 'CREATED' })).events[0];
    expect(created).toMatchObject({ queueName: 'replays' });
    // Every setting came along: the callback reports on the replayed message with its retries.
    const callbacks = await destination.waitFor('/cb', 2);
    const bodies = callbacks.map((request) => JSON.parse(request.text) as { sourceMessageId: string; maxRetries: number });
    expect(bodies.find((body) => body.sourceMessageId === replayed)).toMatchObject({ maxRetries: 2 });
    // Each callback says which attempt it reports on.
    await page.goto(`${server.server.url}/console/#/messages/${messageId}`);
    await page.locator('aside.detail .callback .reports-on').getByText('on attempt 1, answered 200').waitFor();
  });

  it('sends an unedited resend with the very bytes and every header value of the original', async () => {
    const body = '{"compact":true,"n":[1,2]}';
    const { messageId } = await server.messaging.publish({
      destination: `${destination.url}/same`,
      body,
      contentType: 'application/json',
      headers: { 'X-Tag': 'a' },
      retries: 0,
    });
    const [original] = await destination.waitFor('/same', 1);
    await page.goto(`${server.server.url}/console/#/messages/${messageId}`);
    const detail = page.locator('aside.detail');
    await detail.getByRole('button', { name: 'Edit and resend' }).click();
    const editor = detail.getByRole('form', { name: 'Edit and resend' });
    // The editor shows the body pretty-printed; sent unedited, the bytes are the original's.
    await expect(editor.locator('textarea[name="resend-body"]').inputValue()).resolves.toContain('\n');
    await editor.getByRole('button', { name: 'Send as a new message' }).click();
    const [, copy] = await destination.waitFor('/same', 2);
    expect(copy!.text).toBe(body);
    expect([copy!.headers['x-tag'], copy!.headers['content-type']]).toEqual([
      original!.headers['x-tag'],
      original!.headers['content-type'],
    ]);
  });

  it('edits the body and headers of a dead-lettered message from the DLQ, sends it as a new one, and links the two both ways', async () => {
    destination.script('/fix', (request) => (request.text.includes('"ok":true') ? { status: 200 } : { status: 422 }));
    const { messageId } = await server.messaging.publish({
      destination: `${destination.url}/fix`,
      body: '{"ok":false}',
      contentType: 'application/json',
      headers: { 'X-Tenant': 'acme' },
      retries: 0,
    });
    await server.waitForEvents('dlq', 1);
    await page.getByRole('link', { name: 'DLQ' }).click();
    await page.locator('tr[data-dlq-id]').getByRole('link', { name: 'Edit and resend' }).click();
    const detail = page.locator('aside.detail');
    await detail.getByRole('button', { name: 'Edit and resend' }).click();
    const editor = detail.getByRole('form', { name: 'Edit and resend' });
    await expect(editor.locator('textarea[name="resend-headers"]').inputValue()).resolves.toMatch(/^X-Tenant: acme$/im);
    await editor.locator('textarea[name="resend-body"]').fill('{"ok":true}');
    await editor.locator('textarea[name="resend-headers"]').fill('content-type: application/json\nx-tenant: globex');
    await editor.getByRole('button', { name: 'Send as a new message' }).click();
    const [, fixed] = await destination.waitFor('/fix', 2);
    expect([fixed!.text, fixed!.headers['x-tenant']]).toEqual(['{"ok":true}', 'globex']);
    const copy = String(fixed!.headers['service-message-id']);
    await page.waitForURL(new RegExp(`#/messages/${copy}$`));
    await detail.getByText('DELIVERED').first().waitFor();
    await detail.getByRole('link', { name: messageId }).click();
    await page.locator('aside.detail dd.resends').getByRole('link', { name: copy }).waitFor();
  });
});
