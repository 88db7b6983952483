// `npm run screenshots`: the console's main views with a little real traffic, saved under
// docs/console/ for the README. Needs the built dev server; Debian's Chromium is installed when
// missing, as for the console's browser tests (or set CHROMIUM_PATH).
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import { createMessagingClient } from '@mailroom/core';
import { startDevServer } from '@mailroom/dev-server';
import { ensureChromium } from '@mailroom/test-machine/apt';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient, serve } from '@upstash/workflow';
import { chromium } from 'playwright-core';

const out = new URL('../docs/console/', import.meta.url);
await mkdir(out, { recursive: true });
const executablePath = ensureChromium('npm run screenshots');

const dev = await startDevServer({ port: 0, log: 'silent', timeScale: 0.01 });
let calls = 0;
const app = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    calls += 1;
    const failing = req.url.startsWith('/payments') && calls % 3 !== 0;
    const dead = req.url.startsWith('/legacy');
    res.writeHead(dead ? 410 : failing ? 503 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(dead ? { error: 'gone' } : failing ? { error: 'payment provider unavailable' } : { ok: true }));
  });
});
await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
const appUrl = `http://localhost:${app.address().port}`;
const client = createMessagingClient({ baseUrl: dev.url, token: dev.token, env: {} });
await client.urlGroups.addEndpoints('order-events', [{ url: `${appUrl}/warehouse` }, { url: `${appUrl}/analytics`, name: 'analytics' }]);
await client.queues.upsert({ name: 'emails', parallelism: 2 });
await client.queues.upsert({ name: 'exports', paused: true });
await client.schedules.createJSON({
  destination: `${appUrl}/digest`,
  cron: 'CRON_TZ=Europe/Paris 0 9 * * 1-5',
  body: { kind: 'daily' },
  scheduleId: 'daily-digest',
});
await client.schedules.createJSON({ destination: `${appUrl}/cleanup`, cron: '*/15 * * * *', body: {}, scheduleId: 'cleanup' });
await client.publishJSON({
  destination: `${appUrl}/orders`,
  body: { orderId: 'o-1001', total: 42.5 },
  label: 'shop',
  callback: `${appUrl}/callbacks`,
});
await client.enqueueJSON({ queue: 'emails', destination: `${appUrl}/welcome`, body: { to: 'ada@example.com' }, label: 'onboarding' });
await client.publishJSON({ destination: `${appUrl}/payments`, body: { orderId: 'o-1002', amount: 1999 }, retries: 4, label: 'shop' });
await client.publishJSON({ destination: 'order-events', body: { orderId: 'o-1003', event: 'shipped' } });
await client.publishJSON({
  destination: `${appUrl}/legacy/hook`,
  body: { orderId: 'o-1004' },
  retries: 1,
  failureCallback: `${appUrl}/on-failure`,
});
await client.enqueueJSON({ queue: 'exports', destination: `${appUrl}/exports`, body: { month: '2026-11' } });
await new Promise((resolve) => setTimeout(resolve, 2500));

const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
const shot = (name) => page.screenshot({ path: new URL(`${name}.png`, out).pathname });
await page.goto(dev.consoleUrl);
await page.waitForSelector('tr[data-message-id]');
await shot('messages');
await page.locator('tr[data-message-id]', { hasText: '/payments' }).getByRole('link').click();
await page.waitForSelector('aside.detail');
await page.locator('.attempt summary').first().click();
await shot('message-timeline');
for (const view of ['dlq', 'queues', 'schedules', 'stats', 'send']) {
  await page.goto(`${dev.url}/console/#/${view}`);
  await page.waitForTimeout(900);
  await shot(view);
}
// The workbench: faults on demand (their page, and the banner every page shows), and Edit and resend.
const dev_ = (method, path, body) =>
  fetch(`${dev.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
await dev_('POST', '/dev/faults', { kind: 'duplicate', to: '/orders', times: 3 });
await dev_('POST', '/dev/faults', { kind: 'throttle', status: 503, retryAfter: '5s', times: 1 });
await page.goto(`${dev.url}/console/#/faults`);
await page.waitForFunction(() => document.querySelectorAll('tr[data-fault-id]').length === 2);
await shot('faults');
await page.goto(`${dev.url}/console/#/messages`);
await page.locator('tr[data-message-id]', { hasText: '/legacy' }).getByRole('link').first().click();
await page.getByRole('button', { name: 'Edit and resend' }).click();
await page.waitForSelector('form.resend-editor');
await shot('edit-and-resend');
await dev_('DELETE', '/dev/faults');
await page.emulateMedia({ colorScheme: 'dark' });
await page.evaluate(() => localStorage.removeItem('mailroom-console-theme'));
await page.goto(`${dev.url}/console/#/messages`);
await page.reload();
await page.waitForSelector('tr[data-message-id]');
await shot('messages-dark');
await shotWorkflowRun(page);
await browser.close();
await dev.close();
app.close();
console.log(`screenshots in ${out.pathname}`);

/** A run of the Workflow SDK on a dev server with the service's prefix, shown on its run page. */
async function shotWorkflowRun(page) {
  const wf = await startDevServer({ port: 0, log: 'silent', timeScale: 0.01, headerPrefix: 'Upstash', issuer: 'Upstash' });
  const { handler } = serve(
    async (context) => {
      const order = await context.run('reserve stock', () => ({ orderId: context.requestPayload.orderId, reserved: true }));
      await Promise.all([context.run('send email', () => 'sent'), context.run('issue invoice', () => ({ invoice: 'inv-7' }))]);
      await context.sleep('cool down', 60);
      await context.waitForEvent('approval', `approve-${order.orderId}`, { timeout: '1d' });
    },
    {
      qstashClient: new QStashClient({ baseUrl: wf.url, token: wf.token }),
      receiver: new Receiver({ currentSigningKey: wf.currentSigningKey, nextSigningKey: wf.nextSigningKey }),
      disableTelemetry: true,
    },
  );
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const headers = new Headers(Object.entries(req.headers).filter(([, value]) => typeof value === 'string'));
    const response = await handler(
      new Request(`http://localhost:${server.address().port}${req.url}`, { method: 'POST', headers, ...(body.length ? { body } : {}) }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { workflowRunId } = await new WorkflowClient({ baseUrl: wf.url, token: wf.token }).trigger({
    url: `http://localhost:${server.address().port}/api/checkout`,
    body: { orderId: 'o-7' },
  });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(wf.consoleUrl);
  await page.evaluate((id) => {
    location.hash = `#/workflows/${id}`;
  }, workflowRunId);
  await page.waitForSelector('.waiting', { timeout: 20_000 });
  await shot('workflow-run');
  server.close();
  await wf.close();
}
