// Measurement 8: a test of message-driven code, under @mailroom/testing (the service in-process, a
// virtual clock) and under `mailroom dev --time-scale 0.001` (the fastest a user could do before).
// Two scenarios, each a whole test (a fresh service, the scenario, its assertion, closing):
//   dlq:       a message whose handler always fails, retried 5 times with the default backoff (about
//              an hour of waits), into the DLQ.
//   workflow:  a Workflow SDK run of 5 steps with a sleep('1d') in the middle, to RUN_SUCCESS.
// And a file of 100 such tests run by vitest, start to exit.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createMessagingClient } from '@mailroom/core';
import { startDevServer } from '@mailroom/dev-server';
import { createTestService, explore } from '@mailroom/testing';
import { check, log, report } from './lib/child.mjs';
import { appFor } from './lib/testing-app.mjs';
import { summarise } from './lib/stats.mjs';

const section = '8. Testing';
const HUNDRED = fileURLToPath(new URL('./testing-hundred/hundred.test.mjs', import.meta.url));
const VITEST = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

const SCENARIOS = {
  async dlq({ client, appUrl, settle, dlq }) {
    await client.publish({ destination: `${appUrl}/fail`, body: 'x', retries: 5 });
    await settle(() => dlq().then((entries) => entries.length === 1));
  },
  async workflow({ client, appUrl, settle, runs }) {
    await client.publish({ destination: `${appUrl}/workflow`, body: '{}' });
    await settle(() => runs().then((list) => list[0]?.workflowState === 'RUN_SUCCESS'));
  },
};

/** One whole test under the test service: ms from creating the service to closing it. */
async function underTestService(name) {
  const started = performance.now();
  const service = await createTestService({ headerPrefix: 'Upstash', createApp: (env) => ({ listener: appFor(env) }) });
  try {
    await SCENARIOS[name]({
      // The code under test sends through the service's own client, in-process (no port).
      client: service.client,
      appUrl: 'http://app.test',
      settle: async (done) => {
        await service.runUntilIdle();
        check(await done(), `${name}: under the test service the scenario did not end as expected`);
      },
      dlq: () => service.dlq(),
      runs: () => service.runs(),
    });
  } finally {
    await service.close();
  }
  return performance.now() - started;
}

/** The same test against `mailroom dev` on a port, time-scaled, with the app on a port of its own. */
async function underDevServer(name, timeScale) {
  const started = performance.now();
  const dev = await startDevServer({ port: 0, log: 'silent', timeScale, headerPrefix: 'Upstash', issuer: 'Upstash', plan: 'paid' });
  const env = {
    QSTASH_URL: dev.url,
    QSTASH_TOKEN: dev.token,
    QSTASH_CURRENT_SIGNING_KEY: dev.currentSigningKey,
    QSTASH_NEXT_SIGNING_KEY: dev.nextSigningKey,
  };
  const app = http.createServer(appFor(env));
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const client = createMessagingClient({ baseUrl: dev.url, token: dev.token, headerPrefix: 'Upstash', env: {} });
    await SCENARIOS[name]({
      client,
      appUrl: `http://127.0.0.1:${app.address().port}`,
      // What a test against a server does: poll until the outcome shows.
      settle: async (done) => {
        const giveUpAt = performance.now() + 300_000;
        while (!(await done())) {
          check(performance.now() < giveUpAt, `${name}: under mailroom dev the scenario did not end within 300 s`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
      dlq: async () => (await client.dlq.list()).messages,
      runs: async () => (await client.workflows.logs()).runs,
    });
  } finally {
    app.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
    await dev.close();
  }
  return performance.now() - started;
}

/** The workflow test as the only test of a file, in a fresh vitest run: the duration vitest reports for it, ms. */
function firstTestOfAFile() {
  const root = fileURLToPath(new URL('./testing-hundred/', import.meta.url));
  const vitest = spawnSync(process.execPath, [VITEST, 'run', '--root', root, 'first.test.mjs', '--reporter=json'], {
    env: { ...process.env, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const results = vitest.status === 0 ? JSON.parse(vitest.stdout).testResults : [];
  const duration = results[0]?.assertionResults[0]?.duration;
  check(typeof duration === 'number', `the file of one workflow test failed:\n${vitest.stdout.slice(-2000)}${vitest.stderr.slice(-2000)}`);
  return duration;
}

await report(async ({ smoke }) => {
  const rows = [];
  // A file's first test: its imports loaded, everything else cold (JIT, Node's fetch, the SDK's first calls).
  const firsts = [];
  for (let round = 0; round < (smoke ? 1 : 7); round++) firsts.push(firstTestOfAFile());
  log(`workflow as a file's first test: ${summarise(firsts).median.toFixed(1)} ms (median of ${firsts.length} vitest runs)`);
  rows.push({
    section,
    case: 'a workflow of 5 steps with sleep("1d"), as the first test of a file (vitest run, the duration it reports)',
    contender: '@mailroom/testing (in-process, virtual clock), a whole test',
    unit: 'ms',
    value: summarise(firsts),
    ratios: [],
    targets: [{ text: '<= 150 ms', met: summarise(firsts).median <= 150 }],
  });
  const samplesOf = {};
  for (const name of Object.keys(SCENARIOS)) {
    await underTestService(name); // warm-up: module loading, JIT
    const fast = [];
    for (let round = 0; round < (smoke ? 1 : 20); round++) fast.push(await underTestService(name));
    // Once each: at time scale 0.001 the day's sleep alone is 86 s. Smoke runs skip the waits.
    const slow = [await underDevServer(name, smoke ? 0 : 0.001)];
    samplesOf[name] = { fast, slow };
    const speedup = slow[0] / summarise(fast).median;
    log(
      `${name}: test service ${summarise(fast).median.toFixed(1)} ms (median of ${fast.length}); mailroom dev ${(slow[0] / 1000).toFixed(1)} s`,
    );
    const label = name === 'dlq' ? 'a message retried 5 times (default backoff) into the DLQ' : 'a workflow of 5 steps with sleep("1d")';
    rows.push(
      {
        section,
        case: label,
        contender: '@mailroom/testing (in-process, virtual clock), a whole test',
        unit: 'ms',
        value: summarise(fast),
        ratios: [{ vs: `mailroom dev --time-scale ${smoke ? 0 : 0.001}`, median: speedup, min: speedup, max: speedup }],
        targets: [
          { text: '< 50 ms', met: summarise(fast).median < 50 },
          { text: '>= 20x mailroom dev --time-scale 0.001', met: speedup >= 20 },
        ],
      },
      {
        section,
        case: label,
        contender: `mailroom dev --time-scale ${smoke ? 0 : 0.001} on a port, the app on another, polling`,
        unit: 'ms',
        value: summarise(slow),
        ratios: [],
        targets: [],
      },
    );
  }
  // explore: the DLQ scenario under 200 seeded delivery schedules (duplicates, lost answers), each a fresh service.
  const schedules = smoke ? 20 : 200;
  const exploreStarted = performance.now();
  const explored = await explore(
    { runs: schedules, seed: 1, headerPrefix: 'Upstash', createApp: (env) => ({ listener: appFor(env) }) },
    async (service) => {
      await service.client.publish({ destination: 'http://app.test/fail', body: 'x', retries: 5 });
      await service.runUntilIdle();
      check((await service.dlq()).length === 1, 'explore: the DLQ scenario did not end in the DLQ');
    },
  );
  const exploreMs = performance.now() - exploreStarted;
  check(explored.used.duplicate + explored.used.loseAnswer > 0, 'explore: no schedule used a freedom');
  log(`explore: ${schedules} schedules of the DLQ scenario in ${(exploreMs / 1000).toFixed(2)} s`);
  rows.push({
    section,
    case: `explore: ${schedules} delivery schedules of the DLQ scenario`,
    contender: '@mailroom/testing explore()',
    unit: 's',
    value: summarise([exploreMs / 1000]),
    ratios: [],
    targets: [{ text: '<= 2 s for 200', met: smoke || exploreMs <= 2000 }],
  });
  // 100 tests in one file, as vitest runs them: process start to exit.
  const started = performance.now();
  const vitest = spawnSync(
    process.execPath,
    [VITEST, 'run', '--root', fileURLToPath(new URL('./testing-hundred/', import.meta.url)), 'hundred.test.mjs'],
    {
      env: { ...process.env, NO_COLOR: '1', HUNDRED_ROUNDS: smoke ? '4' : '50' },
      encoding: 'utf8',
    },
  );
  const fileMs = performance.now() - started;
  const expected = smoke ? 8 : 100;
  check(
    vitest.status === 0 && new RegExp(`Tests\\s+${expected} passed`).test(vitest.stdout),
    `the file of ${expected} tests failed:\n${vitest.stdout.slice(-2000)}${vitest.stderr.slice(-2000)}`,
  );
  log(`${expected} tests in one file (${HUNDRED.split('/').at(-1)}): ${(fileMs / 1000).toFixed(2)} s, vitest start to exit`);
  rows.push({
    section,
    case: `${expected} such tests in one file (vitest run, start to exit)`,
    contender: '@mailroom/testing',
    unit: 's',
    value: summarise([fileMs / 1000]),
    ratios: [],
    targets: [{ text: '< 5 s', met: fileMs < 5000 }],
  });
  return {
    id: 'testing',
    rows,
    checks: [
      'testing: every scenario ended with its DLQ entry or its RUN_SUCCESS under both the test service and mailroom dev; the file of tests passed',
    ],
    notes: [
      "Testing: one test is a fresh service, the scenario, its check and closing. Under @mailroom/testing the app is a node:http listener reached in-process (the Workflow SDK reaches the service on its port 0); under mailroom dev (time scale 0.001: the default backoff of 5 retries waits about 3.4 s, the day's sleep 86 s) the app listens on a port and the test polls the DLQ or the run. The file of 100 tests alternates the two scenarios.",
    ],
  };
});
