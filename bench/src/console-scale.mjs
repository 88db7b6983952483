// Measurement 9: the console at scale. The dev server holds 100,000 pending messages and 10,000
// workflow runs (each a pending trigger, so 110,000 pending in all); we time what a person waits for:
//   server:  the first page of `GET /dev/messages` (unfiltered, and with a label and a text filter),
//            and of `GET /v2/workflows/events`, answered to a client on the same machine;
//   browser: in headless Chromium, with the console already open: from clicking a view (Messages,
//            Workflows), setting a filter or asking for the next page, to its rows on screen; and
//            the longest task that blocked the page while it polled for 10 s.
// Smoke runs load 2,000 messages and 200 runs, and skip the browser when no Chromium is installed.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startDevServer } from '@mailroom/dev-server';
import { check, log, report } from './lib/child.mjs';
import { summarise } from './lib/stats.mjs';

const section = '9. Console at scale';
const NEVER = 'http://127.0.0.1:9/never';
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(
  (path) => path && existsSync(path),
);

/** Sends `items` in batches of 1,000 through `POST /v2/batch` (the service's own headers on each item). */
async function load(dev, count, item) {
  for (let start = 0; start < count; start += 1000) {
    const items = Array.from({ length: Math.min(1000, count - start) }, (_, offset) => item(start + offset));
    const answer = await fetch(`${dev.url}/v2/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(items),
    });
    check(answer.ok, `loading a batch answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
  }
}

/** Milliseconds of `rounds` answers to `path`, after one unmeasured. */
async function answerTimes(dev, path, rounds, expect) {
  const times = [];
  for (let round = 0; round <= rounds; round++) {
    const started = performance.now();
    const answer = await fetch(`${dev.url}${path}`, { headers: { authorization: `Bearer ${dev.token}` } });
    const body = await answer.json();
    const elapsed = performance.now() - started;
    check(answer.ok && expect(body), `${path} answered ${answer.status}: ${JSON.stringify(body).slice(0, 200)}`);
    if (round > 0) times.push(elapsed);
  }
  return times;
}

/** Milliseconds from `act` to `shown` resolving, `rounds` times. */
async function browserTimes(rounds, act, shown, reset) {
  const times = [];
  for (let round = 0; round < rounds; round++) {
    await reset?.();
    const started = performance.now();
    await act();
    await shown();
    times.push(performance.now() - started);
  }
  return times;
}

await report(async ({ smoke }) => {
  const messages = smoke ? 2_000 : 100_000;
  const runs = smoke ? 200 : 10_000;
  const dev = await startDevServer({ port: 0, log: 'silent', plan: 'paid', headerPrefix: 'Upstash', issuer: 'Upstash' });
  const rows = [];
  try {
    const loadStarted = performance.now();
    await load(dev, messages, (index) => ({
      destination: `${NEVER}/orders/${index % 100}`,
      headers: { 'Upstash-Delay': '1d', 'Upstash-Label': `team-${index % 10}` },
      body: JSON.stringify({ orderId: `o-${index}`, note: 'x'.repeat(100) }),
    }));
    await load(dev, runs, (index) => ({
      destination: `${NEVER}/workflow`,
      headers: {
        'Upstash-Delay': '1d',
        'Upstash-Workflow-RunId': `wfr_bench${String(index).padStart(6, '0')}`,
        'Upstash-Workflow-Init': 'true',
        'Upstash-Workflow-Url': `${NEVER}/workflow`,
      },
      body: JSON.stringify({ run: index }),
    }));
    log(`console: loaded ${messages} messages and ${runs} runs in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

    const rounds = smoke ? 3 : 20;
    const server = {
      'first page of messages': await answerTimes(
        dev,
        '/dev/messages?count=50',
        rounds,
        (body) => body.messages.length === 50 && body.total === messages + runs,
      ),
      'messages filtered by label and text': await answerTimes(
        dev,
        '/dev/messages?count=50&label=team-3&text=o-123',
        rounds,
        (body) => body.total > 0 && body.messages.every((row) => row.labels.includes('team-3')),
      ),
      'first page of workflow runs': await answerTimes(
        dev,
        '/v2/workflows/events?count=50',
        rounds,
        (body) => body.runs.length === 50 && body.cursor !== undefined,
      ),
    };
    // One row per timed action, on the server or in the browser: its median must stay under 100 ms.
    const actionRow = (what, contender, times) => ({
      section,
      case: `${messages.toLocaleString('en')} pending messages, ${runs.toLocaleString('en')} runs: ${what}`,
      contender,
      unit: 'ms',
      value: summarise(times),
      ratios: [],
      targets: [{ text: '< 100 ms', met: summarise(times).median < 100 }],
    });
    for (const [what, times] of Object.entries(server)) {
      log(`console: server, ${what}: ${summarise(times).median.toFixed(1)} ms`);
      rows.push(actionRow(what, 'the dev server answering (HTTP on loopback)', times));
    }

    if (!CHROMIUM) {
      check(smoke, 'no Chromium to measure the console in: install the Debian package "chromium" or set CHROMIUM_PATH');
      log('console: no Chromium here; the browser rows are skipped in a smoke run');
    } else {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(dev.consoleUrl);
        await page.locator('tr[data-message-id]').first().waitFor();
        const pager = page.getByRole('navigation', { name: 'Pages' });
        const firstRows = () => page.locator('tr[data-message-id], tr[data-run-id]').first().waitFor();
        const browserRounds = smoke ? 2 : 10;
        const browserRows = {
          'Messages clicked, first page shown': await browserTimes(
            browserRounds,
            () => page.getByRole('link', { name: 'Messages', exact: true }).click(),
            firstRows,
            () => page.getByRole('link', { name: 'Send', exact: true }).click(),
          ),
          'label filter set, its first page shown': await browserTimes(
            browserRounds,
            () => page.getByLabel('Label').fill('team-7'),
            () => page.locator('tbody tr[data-message-id] td:nth-child(4)').first().getByText('team-7', { exact: true }).waitFor(),
            async () => {
              await page.getByLabel('Label').fill('');
              await page
                .locator('tbody tr[data-message-id] td:nth-child(4)')
                .first()
                .getByText('team-7', { exact: true })
                .waitFor({ state: 'detached' });
            },
          ),
          'Older clicked, next page shown': await browserTimes(
            browserRounds,
            () => pager.getByRole('button', { name: 'Older' }).click(),
            () => pager.getByText(/^51–100 of /).waitFor(),
            async () => {
              if (await pager.getByText(/^51–100 of /).isVisible()) await pager.getByRole('button', { name: 'Newer' }).click();
              await pager.getByText(/^1–50 of /).waitFor();
            },
          ),
          'Workflows clicked, first page of runs shown': await browserTimes(
            browserRounds,
            () => page.getByRole('link', { name: 'Workflows', exact: true }).click(),
            () => page.locator('tr[data-run-id]').first().waitFor(),
            async () => {
              await page.getByRole('link', { name: 'Send', exact: true }).click();
              await page.locator('tr[data-run-id]').first().waitFor({ state: 'detached' });
            },
          ),
        };
        // Responsiveness while the list polls every second: the longest task that held the main thread.
        await page.getByRole('link', { name: 'Messages', exact: true }).click();
        await firstRows();
        const longest = await page.evaluate(
          (ms) =>
            new Promise((resolve) => {
              let max = 0;
              new PerformanceObserver((list) => {
                for (const entry of list.getEntries()) max = Math.max(max, entry.duration);
              }).observe({ type: 'longtask' });
              setTimeout(() => resolve(max), ms);
            }),
          smoke ? 2_000 : 10_000,
        );
        for (const [what, times] of Object.entries(browserRows)) {
          log(`console: Chromium, ${what}: ${summarise(times).median.toFixed(1)} ms`);
          rows.push(actionRow(what, 'the console in headless Chromium (Playwright), from the action to the rows on screen', times));
        }
        log(`console: Chromium, longest task while polling: ${longest.toFixed(0)} ms`);
        rows.push({
          section,
          case: `${messages.toLocaleString('en')} pending messages: the longest task blocking the page while it polls (${smoke ? 2 : 10} s)`,
          contender: 'the console in headless Chromium (PerformanceObserver longtask; 0 = none over 50 ms)',
          unit: 'ms',
          value: summarise([longest]),
          ratios: [],
          targets: [{ text: '< 100 ms', met: longest < 100 }],
        });
      } finally {
        await browser.close();
      }
    }
  } finally {
    await dev.close();
  }
  return {
    id: 'console',
    rows,
    checks: ['console: every page answered held the rows its filter asks for, and the unfiltered total counted every pending message'],
    notes: [
      "Console at scale: the messages wait a day (so all stay pending) and spread over 100 URLs and 10 labels; each run is a pending trigger of the Workflow SDK's shape. Browser times are from the Playwright action to the awaited rows, so they include the poll that fetches the page and its render.",
    ],
  };
});
