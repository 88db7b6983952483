// Measurement 12: a receiver's cold start, what a serverless function pays before its first delivery:
// a fresh Node process imports the package and builds a receiver. Mailroom's (`createReceiver` from
// @mailroom/core, and the Express adapter a Node app imports) against the vendor's (`Receiver` from
// @upstash/qstash). Each sample is its own process, timed from the import's start to the receiver
// built (Node's own start is the same for all and left out); the contenders alternate process by
// process, so a busy moment of the machine falls on all of them alike.
import { spawnSync } from 'node:child_process';
import { check, log, report } from './lib/child.mjs';
import { CURRENT_KEY, NEXT_KEY } from './lib/fixtures.mjs';
import { pairedRatio, summarise } from './lib/stats.mjs';

const section = '12. Cold start';
const CASE = 'a fresh process imports the package and builds a receiver (ms, Node start excluded)';

const KEYS = JSON.stringify({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY });
const CONTENDERS = {
  core: {
    label: '@mailroom/core createReceiver',
    script: `const { createReceiver } = await import('@mailroom/core'); const r = createReceiver(${KEYS}); ok = typeof r.message === 'function';`,
  },
  express: {
    label: '@mailroom/adapters/express createMailroom',
    script: `const { createMailroom } = await import('@mailroom/adapters/express'); const m = createMailroom(${KEYS}); ok = typeof m.receiver.message === 'function';`,
  },
  vendor: {
    label: 'vendor: @upstash/qstash Receiver',
    script: `const { Receiver } = await import('@upstash/qstash'); const r = new Receiver({ currentSigningKey: ${JSON.stringify(CURRENT_KEY)}, nextSigningKey: ${JSON.stringify(NEXT_KEY)} }); ok = typeof r.verify === 'function';`,
  },
};

/** One cold start of `name` in a new process: the ms from the import's start to the receiver built. */
function coldStart(name) {
  const source = `let ok = false; const started = performance.now(); ${CONTENDERS[name].script} process.stdout.write(JSON.stringify({ ok, ms: performance.now() - started }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: new URL('..', import.meta.url),
    encoding: 'utf8',
    timeout: 30_000,
  });
  check(child.status === 0, `${name}: the cold start failed: ${child.stderr.slice(-500)}`);
  const { ok, ms } = JSON.parse(child.stdout);
  check(ok, `${name}: the receiver was not built`);
  return ms;
}

await report(async ({ smoke }) => {
  const rounds = smoke ? 2 : 15;
  const samples = Object.fromEntries(Object.keys(CONTENDERS).map((name) => [name, []]));
  // One unmeasured round first: it brings the files into the page cache.
  for (const name of Object.keys(CONTENDERS)) coldStart(name);
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(CONTENDERS)) samples[name].push(coldStart(name));
  }
  log(
    `cold start: ${Object.entries(samples)
      .map(([name, values]) => `${name} ${summarise(values).median.toFixed(1)} ms`)
      .join(', ')}`,
  );
  const rows = Object.entries(CONTENDERS).map(([name, { label }]) => {
    const row = { section, case: CASE, contender: label, unit: 'ms', value: summarise(samples[name]), ratios: [], targets: [] };
    if (name !== 'vendor') {
      // Time as a multiple of the vendor's: under 1 is faster.
      const ratio = pairedRatio(samples[name], samples.vendor);
      row.ratios.push({ vs: 'vendor time', ...ratio });
      row.targets.push({ text: "<= 0.5x the vendor's time", met: ratio.median <= 0.5 });
    }
    return row;
  });
  return {
    id: 'cold-start',
    rows,
    checks: ['cold start: each package imported in a fresh process built its receiver'],
    notes: [
      "Cold start: each sample a new `node` process that imports the package and builds a receiver, timed inside the process from the import's start (Node's own start, the same for every contender, is left out); the three alternate process by process after one unmeasured round. Core loads zod and its response schemas only with the first answer that needs them.",
    ],
  };
});
