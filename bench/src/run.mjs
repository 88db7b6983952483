// `npm run bench` (and `npm run bench -- --smoke`): runs every measurement in its own process,
// prints one table, writes bench/results/latest.json and docs/benchmarks.md.
//   --smoke             a second or so per case, correctness checks included, targets not enforced,
//                       two sections at a time; writes bench/results/smoke.json only. `npm test` runs this.
//   --only=a,b          run some measurements (verification, express, fastify, hono, next, sending, receiving-options, idempotency-stores, cold-start, dev-server, workflow, testing, console, scale)
//   --enforce-targets   exit 2 when a target is missed (full runs only)
// Exit 1 when a correctness check fails or a measurement breaks: a broken path never reports a speed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { runChild } from './lib/child.mjs';
import { loadAverage, machine, writeMarkdown, writeResults } from './lib/report.mjs';
import { inLanes } from './lib/rounds.mjs';
import { textTable } from './lib/table.mjs';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const enforce = args.includes('--enforce-targets');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const here = (path) => new URL(path, import.meta.url);
const root = here('../../');

const MEASUREMENTS = [
  { id: 'verification', file: 'verification.mjs' },
  { id: 'express', file: 'framework-throughput.mjs', args: ['--framework=express'] },
  { id: 'fastify', file: 'framework-throughput.mjs', args: ['--framework=fastify'] },
  { id: 'hono', file: 'framework-throughput.mjs', args: ['--framework=hono'] },
  { id: 'next', file: 'next-handler.mjs' },
  { id: 'sending', file: 'sending.mjs' },
  { id: 'receiving-options', file: 'receiving-options.mjs' },
  { id: 'idempotency-stores', file: 'idempotency-stores.mjs' },
  { id: 'cold-start', file: 'cold-start.mjs' },
  // Last: it needs a colleague's package, and must not hold up the others.
  { id: 'dev-server', file: 'dev-server.mjs', needsDevServer: true },
  {
    id: 'workflow',
    file: 'workflow.mjs',
    needsDevServer: true,
    execArgv: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [],
  },
  { id: 'testing', file: 'testing.mjs', timeoutMs: 900_000 },
  { id: 'console', file: 'console-scale.mjs', needsDevServer: true, timeoutMs: 600_000 },
  // The scale section (`npm run bench:scale` runs it alone): several minutes by itself.
  { id: 'scale', file: 'scale.mjs', needsDevServer: true, timeoutMs: 1_200_000 },
];

/** The dev server package is built and exports startDevServer, or why not. */
async function devServerStatus() {
  const dist = new URL('packages/dev-server/dist/index.js', root);
  if (!smoke) {
    // `npm run bench` builds core and the adapters first; the dev server is built here so that a
    // half-finished dev server leaves a "pending" row instead of stopping every measurement.
    const build = spawnSync('npx', ['turbo', 'run', 'build', '--filter=@mailroom/dev-server', '--output-logs=errors-only'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      timeout: 180_000,
    });
    if (build.status !== 0)
      return `pending: @mailroom/dev-server does not build yet (${(build.stderr?.toString().trim().split('\n').pop() ?? 'error').slice(0, 120)})`;
  }
  if (!existsSync(dist)) return 'pending: packages/dev-server/dist is not built';
  try {
    const module = await import(dist.href);
    if (typeof module.startDevServer !== 'function') return 'pending: @mailroom/dev-server does not export startDevServer yet';
  } catch (error) {
    return `pending: @mailroom/dev-server does not load (${String(error?.message ?? error).slice(0, 120)})`;
  }
  return undefined;
}

function pendingDevServerRow(note) {
  return {
    section: '5. Dev server',
    case: 'end to end',
    contender: 'enqueue -> signed delivery -> 2xx',
    note,
    unit: '',
    ratios: [],
    targets: [
      { text: '>= 5,000 msg/s', pending: true },
      { text: '0 lost, 0 duplicated', pending: true },
      { text: 'p50 < 5 ms at 500/s', pending: true },
    ],
  };
}

const started = performance.now();
const startLoad = loadAverage();
process.stderr.write(`mailroom bench${smoke ? ' (smoke)' : ''}: Node ${process.version}, load average ${startLoad.join(' ')}\n`);

/** Runs one measurement; what it adds to the report, in MEASUREMENTS order once all are done. */
async function measure(m) {
  const out = { rows: [], checks: [], notes: [], failures: [], correctnessFailed: false, log: [] };
  const say = (line) => (smoke ? out.log.push(line) : process.stderr.write(line));
  say(`- ${m.id}\n`);
  if (m.needsDevServer) {
    const pending = await devServerStatus();
    if (pending) {
      say(`  ${pending}\n`);
      out.rows.push(pendingDevServerRow(pending));
      out.notes.push(`Dev server end to end: ${pending}.`);
      return out;
    }
  }
  try {
    const result = await runChild(here(m.file).pathname, [...(smoke ? ['--smoke'] : []), ...(m.args ?? [])], {
      timeoutMs: smoke ? 90_000 : (m.timeoutMs ?? 420_000),
      execArgv: m.execArgv ?? [],
      // Smoke sections run side by side: each one's progress is printed whole once it ends.
      onLog: smoke ? say : undefined,
    });
    out.rows.push(...result.rows);
    out.checks.push(...result.checks);
    out.notes.push(...(result.notes ?? []));
  } catch (error) {
    out.failures.push({ id: m.id, correctness: Boolean(error.correctness), error: String(error.message) });
    if (error.correctness) out.correctnessFailed = true;
    say(`  FAILED: ${String(error.message).split('\n').slice(0, 3).join(' | ')}\n`);
  }
  if (smoke) process.stderr.write(out.log.join(''));
  return out;
}

/**
 * A full run measures one section at a time, so none colours another's figures. A smoke run checks
 * paths, not speeds: two sections at a time, as most of a section's time is spent starting
 * processes and waiting on sockets (inside `npm test` it was a minute on one of turbo's two slots).
 */
const selected = MEASUREMENTS.filter((m) => !only || only.includes(m.id));
const outcomes = await inLanes(selected.length, smoke ? 2 : 1, (index) => measure(selected[index]));
const rows = outcomes.flatMap((o) => o.rows);
const checks = outcomes.flatMap((o) => o.checks);
const failures = outcomes.flatMap((o) => o.failures);
const notes = outcomes.flatMap((o) => o.notes);
const correctnessFailed = outcomes.some((o) => o.correctnessFailed);

const run = {
  mode: smoke ? 'smoke' : 'full',
  date: new Date().toISOString(),
  machine: machine(),
  loadAverage: { start: startLoad, end: loadAverage() },
  durationSeconds: Math.round((performance.now() - started) / 1000),
  rows,
  checks,
  failures,
  notes,
};

process.stdout.write(`\n${textTable(rows, { smoke })}\n\n`);
const missed = rows.flatMap((r) =>
  (r.targets ?? []).filter((t) => !t.met && !t.pending).map((t) => `${r.contender} [${r.case}] ${t.text}`),
);
process.stdout.write(`${checks.length} correctness checks passed; ${failures.length} measurement(s) failed.\n`);
if (!smoke)
  process.stdout.write(missed.length ? `Targets missed:\n${missed.map((m) => `  - ${m}`).join('\n')}\n` : 'Every target was met.\n');
process.stdout.write(`Load average ${run.loadAverage.start.join(' ')} -> ${run.loadAverage.end.join(' ')}; ${run.durationSeconds} s.\n`);

if (smoke) {
  writeResults({ file: here('../results/smoke.json'), run });
} else if (!only) {
  writeResults({ file: here('../results/latest.json'), run });
  writeMarkdown({ file: new URL('docs/benchmarks.md', root), run });
  process.stdout.write('Wrote bench/results/latest.json and docs/benchmarks.md.\n');
} else {
  writeResults({ file: here(`../results/partial-${only.join('-')}.json`), run });
}

if (correctnessFailed || failures.length > 0) process.exitCode = 1;
else if (enforce && !smoke && missed.length > 0) process.exitCode = 2;
