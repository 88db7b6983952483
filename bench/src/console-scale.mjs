// Measurement 9: the console at scale. The dev server holds 100,000 pending messages and 10,000
// workflow runs (each a pending trigger, so 110,000 pending in all); we time what a person waits for:
//   server:  the first page of `GET /dev/messages` (unfiltered, and with a label and a text filter),
//            and of `GET /v2/workflows/events`, answered to a client on the same machine;
//   browser: in headless Chromium, with the console already open: from clicking a view (Messages,
//            Workflows), setting a filter or asking for the next page, to the frame that shows its
//            rows, timed in the page from the input event (what a person waits for, as the web's
//            Interaction to Next Paint counts it) and, without a target, from Playwright's call (which
//            adds its own checks and round trips); and the longest task that blocked the page while
//            it polled for 10 s.
// The dev server runs in its own process, as `mailroom dev` does, so the browser's driver does not
// share its event loop.
// Smoke runs load 2,000 messages and 200 runs, and skip the browser when no Chromium is installed.
import { ensureChromium, findChromium } from '@mailroom/test-machine/apt';
import { performance } from 'node:perf_hooks';
import { check, log, report } from './lib/child.mjs';
import { startProcess } from './lib/processes.mjs';
import { summarise } from './lib/stats.mjs';

const section = '9. Console at scale';
const HOST = new URL('./servers/scale-host.mjs', import.meta.url).pathname;
const NEVER = 'http://127.0.0.1:9/never';

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

/**
 * Installs `window.benchShown(target)` in the page: whether the element `target.selector` finds is
 * there, showing `target.text` when given, and other than the row `target.other` when given.
 */
function installShown(page) {
  return page.evaluate(() => {
    window.benchShown = ({ selector, text, other }) => {
      const element = document.querySelector(selector);
      if (element === null) return false;
      if (text !== undefined && !element.textContent.startsWith(text)) return false;
      return other === undefined || element.getAttribute('data-message-id') !== other;
    };
  });
}

/**
 * Watches the page for the next click or input and for `target` to show, and resolves with the
 * milliseconds from the input event to the end of the frame that first shows it.
 */
function watchInPage(page, target) {
  // Wrapped in an object: a handle to a bare promise would wait for it to settle.
  return page.evaluateHandle(
    (wanted) => ({
      shown: new Promise((resolve) => {
        let input;
        const note = (event) => {
          input ??= event.timeStamp;
        };
        addEventListener('click', note, { capture: true, once: true });
        addEventListener('input', note, { capture: true, once: true });
        const observer = new MutationObserver(() => {
          if (input === undefined || !window.benchShown(wanted)) return;
          observer.disconnect();
          // The frame that paints it: after its animation-frame callbacks, in the task that follows.
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - input)));
        });
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
      }),
    }),
    target,
  );
}

/**
 * For `rounds` rounds: `reset`, then `act`; the times in the page (input to frame) and from
 * Playwright's call to `target` shown (`target` may be a function of the page after `reset`).
 */
async function browserTimes(page, rounds, { act, target: wanted, reset }) {
  const inPage = [];
  const driven = [];
  for (let round = 0; round < rounds; round++) {
    await reset();
    const target = typeof wanted === 'function' ? await wanted() : wanted;
    const watching = await watchInPage(page, target);
    const started = performance.now();
    await act();
    await page.waitForFunction((wanted) => window.benchShown(wanted), target, { polling: 'raf' });
    driven.push(performance.now() - started);
    inPage.push(await watching.evaluate((watch) => watch.shown));
  }
  return { inPage, driven };
}

/**
 * Other requests while "Cancel all matching" (no filter) cancels every pending message: one enqueue
 * after another from before the request until the bulk action finished, each answer timed; the
 * longest is how long the server stopped answering.
 */
async function bulkStall(dev, pending) {
  const headers = { authorization: `Bearer ${dev.token}` };
  const probes = [];
  let bulkDone = false;
  const probing = (async () => {
    for (let index = 0; !bulkDone; index++) {
      const started = performance.now();
      const answer = await fetch(`${dev.url}/v2/publish/${NEVER}/probe`, {
        method: 'POST',
        headers: { ...headers, 'Upstash-Delay': '1d' },
        body: `probe ${index}`,
      });
      await answer.arrayBuffer();
      check(answer.ok, `an enqueue during the bulk cancel answered ${answer.status}`);
      probes.push(performance.now() - started);
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = probes.length;
  const started = performance.now();
  const asked = await fetch(`${dev.url}/dev/messages`, { method: 'DELETE', headers });
  const { actionId, total } = await asked.json();
  check(asked.status === 202 && total >= pending, `the bulk cancel answered ${asked.status} for ${total} messages`);
  for (;;) {
    const action = await (await fetch(`${dev.url}/v2/bulkActions/${actionId}`, { headers })).json();
    if (action.state === 'FINISHED') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const took = performance.now() - started;
  bulkDone = true;
  await probing;
  const during = probes.slice(before);
  const longest = Math.max(...during);
  log(
    `console: bulk cancel of ${total} in ${took.toFixed(0)} ms; ${during.length} enqueues meanwhile, the longest ${longest.toFixed(1)} ms`,
  );
  return {
    section,
    case: `a bulk cancel of every pending message (${total.toLocaleString('en')}, "Cancel all matching" with no filter, ${(took / 1000).toFixed(1)} s): other requests meanwhile`,
    contender: 'the longest answer to an enqueue sent one after another, from the request until the action finished',
    unit: 'ms',
    value: summarise([longest]),
    ratios: [],
    targets: [{ text: '<= 50 ms stall', met: longest <= 50 }],
  };
}

await report(async ({ smoke }) => {
  const messages = smoke ? 2_000 : 100_000;
  const runs = smoke ? 200 : 10_000;
  const host = await startProcess(HOST, { readyTimeoutMs: 60_000 });
  const dev = host.info;
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
    // A message's story, as an open detail polls it every second: what that message holds, whatever the server holds.
    const page = await (
      await fetch(`${dev.url}/dev/messages?count=1&label=team-5`, { headers: { authorization: `Bearer ${dev.token}` } })
    ).json();
    const storied = page.messages[0]?.messageId;
    check(storied !== undefined, 'no message to tell the story of');
    const stories = await answerTimes(
      dev,
      `/dev/messages/${storied}`,
      rounds,
      (body) => body.message.messageId === storied && body.events.length === 1,
    );
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
    log(`console: server, a message's story: ${summarise(stories).median.toFixed(2)} ms`);
    rows.push({
      ...actionRow("a message's story (an open detail polls it every second)", 'the dev server answering (HTTP on loopback)', stories),
      targets: [
        { text: '< 10 ms (that message and one pass over the kept log, whatever is pending)', met: summarise(stories).median < 10 },
      ],
    });

    // A full run installs Debian's Chromium when the machine has none, as the console's tests do; a
    // smoke run (inside `npm test`, beside those tests' own install) only skips the browser rows.
    const executablePath = smoke ? findChromium() : ensureChromium("the bench's console measurements");
    if (!executablePath) {
      log('console: no Chromium here; the browser rows are skipped in a smoke run');
    } else {
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(dev.consoleUrl);
        await page.locator('tr[data-message-id]').first().waitFor();
        await installShown(page);
        const pager = page.getByRole('navigation', { name: 'Pages' });
        const firstRows = () => page.locator('tr[data-message-id], tr[data-run-id]').first().waitFor();
        const view = (name) => page.getByRole('link', { name, exact: true }).click();
        // Back to the Send view, until the rows of the view measured next are gone.
        const leaveFor = async (rows) => {
          await view('Send');
          await page.locator(rows).first().waitFor({ state: 'detached' });
        };
        const labelCell = 'tbody tr[data-message-id] td:nth-child(4)';
        const browserRounds = smoke ? 2 : 10;
        const browserRows = {
          'Messages clicked, first page shown': await browserTimes(page, browserRounds, {
            reset: () => leaveFor('tr[data-message-id]'),
            act: () => view('Messages'),
            target: { selector: 'tr[data-message-id]' },
          }),
          'label filter set, its first page shown': await browserTimes(page, browserRounds, {
            reset: async () => {
              await page.getByLabel('Label').fill('');
              await page.locator(labelCell).first().getByText('team-7', { exact: true }).waitFor({ state: 'detached' });
            },
            act: () => page.getByLabel('Label').fill('team-7'),
            target: { selector: labelCell, text: 'team-7' },
          }),
          'Older clicked, next page shown': await browserTimes(page, browserRounds, {
            reset: async () => {
              if (await pager.getByText(/^51–100 of /).isVisible()) await pager.getByRole('button', { name: 'Newer' }).click();
              await pager.getByText(/^1–50 of /).waitFor();
            },
            act: () => pager.getByRole('button', { name: 'Older' }).click(),
            // Rows other than the first page's: the pager's own text changes before they arrive.
            target: async () => ({
              selector: 'tr[data-message-id]',
              other: await page.locator('tr[data-message-id]').first().getAttribute('data-message-id'),
            }),
          }),
          'Workflows clicked, first page of runs shown': await browserTimes(page, browserRounds, {
            reset: () => leaveFor('tr[data-run-id]'),
            act: () => view('Workflows'),
            target: { selector: 'tr[data-run-id]' },
          }),
        };
        // A first visit: from navigation start to the frame that first shows rows, in a fresh context (cold cache).
        const firstVisits = [];
        for (let round = 0; round < browserRounds; round++) {
          const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
          const fresh = await context.newPage();
          await fresh.addInitScript(() => {
            const observer = new MutationObserver(() => {
              if (!document.querySelector('tr[data-message-id]')) return;
              observer.disconnect();
              requestAnimationFrame(() => setTimeout(() => (window.benchFirstRows = performance.now())));
            });
            observer.observe(document, { childList: true, subtree: true });
          });
          await fresh.goto(dev.consoleUrl);
          await fresh.waitForFunction(() => window.benchFirstRows !== undefined);
          firstVisits.push(await fresh.evaluate(() => window.benchFirstRows));
          await context.close();
        }
        browserRows['the console opened (its link followed), first page shown'] = { inPage: firstVisits, driven: [] };
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
        for (const [what, { inPage, driven }] of Object.entries(browserRows)) {
          log(`console: Chromium, ${what}: ${summarise(inPage).median.toFixed(1)} ms in the page`);
          if (driven.length === 0) {
            rows.push({
              ...actionRow(
                what,
                'the console in headless Chromium, a fresh context: from navigation start to the frame showing the rows',
                inPage,
              ),
              targets: [{ text: '<= 1 s', met: summarise(inPage).median <= 1000 }],
            });
            continue;
          }
          rows.push(actionRow(what, 'the console in headless Chromium, from the input event to the frame showing the rows', inPage));
          rows.push({
            ...actionRow(what, "the same, from Playwright's call to the rows (its actionability checks and round trips added)", driven),
            targets: [],
          });
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
    rows.push(await bulkStall(dev, messages + runs));
  } finally {
    await host.close();
  }
  return {
    id: 'console',
    rows,
    checks: ['console: every page answered held the rows its filter asks for, and the unfiltered total counted every pending message'],
    notes: [
      "Console at scale: the messages wait a day (so all stay pending) and spread over 100 URLs and 10 labels; each run is a pending trigger of the Workflow SDK's shape. The dev server runs in its own process. The bulk cancel runs last (after the browser closed): one enqueue after another from just before the request until the action finished, its longest answer the stall a user's other requests would see. Browser times include the request that fetches the page and its render: in the page, from the input event's time stamp to the end of the frame that first shows the rows (a MutationObserver, then the next animation frame); from Playwright, from its call to the rows seen by a per-frame poll.",
    ],
  };
});
