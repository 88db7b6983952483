// The scale section: the dev server as a real local service holding and taking many messages.
//   pending:  100,000 delayed 200-byte messages with --data-dir: memory and journal bytes per pending
//             message, and a restart after SIGKILL until the server answers again.
//   batched:  the same 100,000 sent as JSON through /v2/batch, 1,000 a batch: memory and the restart.
//   batch:    one 50,000-item batch with --data-dir against the same items in 1,000-item batches.
//   steady:   a steady 300 enqueues/s for 3 minutes (the load generator on the same cores), in memory
//             and with --data-dir: the enqueue latency p99 of every 10-second window.
// Run alone with `npm run bench:scale`.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMessagingClient } from '@mailroom/core';
import { createUndiciTransport } from '@mailroom/core/undici';
import { check, log, report } from './lib/child.mjs';
import { startProcess } from './lib/processes.mjs';
import { inLanes } from './lib/rounds.mjs';
import { percentile, summarise } from './lib/stats.mjs';

const HOST = new URL('./servers/scale-host.mjs', import.meta.url).pathname;
const NEVER = 'http://127.0.0.1:9/never';
const BODY = JSON.stringify({ orderId: 'o-1', note: 'x'.repeat(173) });
const section = '7. Scale';
const WARMUP_SECONDS = 5;

function startHost(dataDir) {
  return startProcess(HOST, { env: dataDir ? { BENCH_DATA_DIR: dataDir } : {}, readyTimeoutMs: 60_000 });
}

function clientOf(host, connections = 64) {
  const transport = createUndiciTransport({ connections });
  const client = createMessagingClient({
    baseUrl: host.info.url,
    token: host.info.token,
    headerPrefix: 'Upstash',
    env: {},
    transport,
    retry: false,
  });
  return { client, close: () => transport.close() };
}

/** Enqueues `count` publishes, `inFlight` at once; resolves with their message ids in order. */
function publishMany(client, count, inFlight) {
  return inLanes(count, inFlight, async () => (await client.publish({ destination: NEVER, body: BODY, delay: '1h' })).messageId);
}

const idle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills `running` with SIGKILL and starts it again on the same data directory: from spawning the process to its first answer. */
async function restart(running, dir, ids) {
  process.kill(running.pid, 'SIGKILL');
  await running.close();
  const started = performance.now();
  const host = await startHost(dir);
  const response = await fetch(`${host.info.url}/v2/queues`, { headers: { authorization: `Bearer ${host.info.token}` } });
  const ms = performance.now() - started;
  check(response.status === 200, `the restarted server answered ${response.status}`);
  // Every accepted message survived the kill: the first, one in the middle and the last.
  for (const id of ids.length === 0 ? [] : [ids[0], ids[ids.length >> 1], ids.at(-1)]) {
    const found = await fetch(`${host.info.url}/v2/messages/${id}`, { headers: { authorization: `Bearer ${host.info.token}` } });
    check(found.status === 200, `message ${id} was lost in the SIGKILL (${found.status})`);
  }
  return { host, ms };
}

/**
 * `rounds` restarts of `host` after SIGKILL (see `restart`): their times, the host running at the end,
 * and against the fresh server's memory (`before`) what the first restart's replay left, as it answered.
 */
async function restartRounds(host, dir, ids, before, rounds) {
  const restarts = [];
  let afterRestart;
  for (let round = 0; round < rounds; round++) {
    const again = await restart(host, dir, ids);
    host = again.host;
    restarts.push(again.ms);
    afterRestart ??= perMessage(await host.call({ cmd: 'memory' }), before, ids.length);
  }
  return { host, restarts, afterRestart };
}

/** Growth per message from `base`: of the RSS, and of the live heap plus external memory. */
function perMessage(memory, base, count) {
  return {
    rss: (memory.rss - base.rss) / count,
    heap: (memory.heapUsed + memory.external - base.heapUsed - base.external) / count,
  };
}

/**
 * The memory once V8 settled by itself, idle: its memory reducer collects and gives pages back some
 * 30-50 s after the last allocation. Sampled every 5 s until the RSS held for two samples below where
 * it started, or for at most `maxMs`. No collection is forced.
 */
async function settledMemory(host, maxMs) {
  const first = await host.call({ cmd: 'memory' });
  let last = first;
  let heldFor = 0;
  const started = performance.now();
  while (performance.now() - started < maxMs) {
    await idle(5_000);
    const now = await host.call({ cmd: 'memory' });
    heldFor = now.rss < first.rss * 0.95 && Math.abs(now.rss - last.rss) < first.rss * 0.01 ? heldFor + 1 : 0;
    last = now;
    if (heldFor >= 2) break;
  }
  return { memory: last, afterMs: performance.now() - started };
}

/** The restart with nothing to replay, on a directory of its own: the process's start, its modules, a first answer. */
async function restartsOfEmpty(rounds) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailroom-scale-empty-'));
  let host = await startHost(dir);
  const restarts = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const again = await restart(host, dir, []);
      host = again.host;
      restarts.push(again.ms);
    }
    return restarts;
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pending(count, smoke) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailroom-scale-'));
  const emptyRestarts = await restartsOfEmpty(smoke ? 1 : 3);
  let host = await startHost(dir);
  try {
    const before = await host.call({ cmd: 'memory' });
    const { client, close } = clientOf(host);
    const started = performance.now();
    const ids = await publishMany(client, count, 64);
    const enqueueSeconds = (performance.now() - started) / 1000;
    await close();
    check(new Set(ids).size === count, `${count} publishes gave ${new Set(ids).size} distinct message ids`);
    const journalBytes = statSync(path.join(dir, 'mailroom.jsonl')).size / count;
    const afterBurst = perMessage(await host.call({ cmd: 'memory' }), before, count);
    const settled = await settledMemory(host, smoke ? 1_000 : 90_000);
    const idleAfterBurst = perMessage(settled.memory, before, count);
    const restarted = await restartRounds(host, dir, ids, before, smoke ? 1 : 3);
    host = restarted.host;
    const { restarts, afterRestart } = restarted;
    log(
      `pending: ${count} in ${enqueueSeconds.toFixed(1)} s; RSS per message ${afterBurst.rss.toFixed(0)} B after the burst, ${idleAfterBurst.rss.toFixed(0)} B idle (after ${(settled.afterMs / 1000).toFixed(0)} s), ${afterRestart.rss.toFixed(0)} B after a restart; journal ${((journalBytes * count) / 1e6).toFixed(1)} MB; restarts ${restarts.map((ms) => ms.toFixed(0)).join(' / ')} ms (empty: ${emptyRestarts.map((ms) => ms.toFixed(0)).join(' / ')} ms)`,
    );
    return {
      count,
      afterBurst,
      idleAfterBurst,
      afterRestart,
      settledAfterMs: settled.afterMs,
      journalBytes,
      restarts,
      emptyRestarts,
      enqueueSeconds,
    };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The pending case as an app sending JSON in batches makes it: `count` delayed messages through
 * /v2/batch (`batchJSON`, so each names its content type), 1,000 a batch. Memory right after the last
 * batch was answered and after a restart, and the restart itself.
 */
async function batchedPending(count, smoke) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailroom-scale-'));
  let host = await startHost(dir);
  try {
    const before = await host.call({ cmd: 'memory' });
    const { client, close } = clientOf(host, 4);
    const ids = [];
    for (let sent = 0; sent < count; sent += 1_000) {
      const items = Array.from({ length: Math.min(1_000, count - sent) }, () => ({
        destination: NEVER,
        body: JSON.parse(BODY),
        delay: '1h',
      }));
      for (const result of await client.batchJSON(items)) ids.push(result.messageId);
    }
    await close();
    check(new Set(ids).size === count, `${count} batched sends gave ${new Set(ids).size} distinct message ids`);
    const afterBurst = perMessage(await host.call({ cmd: 'memory' }), before, count);
    const restarted = await restartRounds(host, dir, ids, before, smoke ? 1 : 3);
    host = restarted.host;
    const { restarts, afterRestart } = restarted;
    log(
      `batched: ${count}; RSS per message ${afterBurst.rss.toFixed(0)} B after the burst, ${afterRestart.rss.toFixed(0)} B after a restart; restarts ${restarts.map((ms) => ms.toFixed(0)).join(' / ')} ms`,
    );
    return { count, afterBurst, afterRestart, restarts };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seconds to accept `total` items as batches of `size`, one batch after another, on a fresh server. */
async function batchSeconds(total, size) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailroom-scale-'));
  const host = await startHost(dir);
  const { client, close } = clientOf(host, 4);
  try {
    const items = Array.from({ length: size }, () => ({ destination: NEVER, body: BODY, delay: '1h' }));
    const started = performance.now();
    const ids = new Set();
    for (let sent = 0; sent < total; sent += size) {
      for (const result of await client.batch(items)) ids.add(result.messageId);
    }
    const seconds = (performance.now() - started) / 1000;
    check(ids.size === total, `batches of ${size}: ${ids.size} distinct message ids for ${total} items`);
    return seconds;
  } finally {
    await close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A destination that answers 200 to everything and counts what it got. */
async function startSink() {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** `rate` enqueues a second for `seconds`, open loop; the p99 enqueue latency of each 10-second window. */
async function steady(dataDir, rate, seconds, windowSeconds, warmupSeconds) {
  const dir = dataDir ? mkdtempSync(path.join(os.tmpdir(), 'mailroom-scale-')) : undefined;
  const host = await startHost(dir);
  const sink = await startSink();
  const { client, close } = clientOf(host);
  try {
    // A few seconds at the same rate first, not measured: connections, compiled code, the first delivery.
    await Promise.all(
      Array.from({ length: rate * warmupSeconds }, (_, index) =>
        idle((index * 1000) / rate).then(() => client.enqueue({ queue: `steady-${index % 8}`, destination: sink.url, body: BODY })),
      ),
    );
    const warmedUp = sink.received();
    const windows = Array.from({ length: Math.ceil(seconds / windowSeconds) }, () => []);
    const total = rate * seconds;
    const started = performance.now();
    const sends = [];
    for (let index = 0; index < total; index++) {
      const due = started + (index * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await idle(wait);
      const window = windows[Math.floor((due - started) / 1000 / windowSeconds)];
      const sentAt = performance.now();
      sends.push(
        client
          .enqueue({ queue: `steady-${index % 8}`, destination: sink.url, body: BODY })
          .then(() => window.push(performance.now() - sentAt)),
      );
    }
    await Promise.all(sends);
    const deadline = performance.now() + 30_000;
    while (sink.received() < warmedUp + total && performance.now() < deadline) await idle(50);
    check(
      sink.received() >= warmedUp + total,
      `steady ${dataDir ? 'with --data-dir' : 'in memory'}: ${sink.received()} of ${total} delivered`,
    );
    return windows.map((latencies) => percentile(latencies, 99));
  } finally {
    await close();
    await sink.close();
    await host.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await report(async ({ smoke }) => {
  const result = await pending(smoke ? 2_000 : 100_000, smoke);
  const batched = await batchedPending(smoke ? 2_000 : 100_000, smoke);
  const batchTotal = smoke ? 2_000 : 50_000;
  const rounds = smoke ? 1 : 2;
  const whole = [];
  const split = [];
  for (let round = 0; round < rounds; round++) {
    whole.push(await batchSeconds(batchTotal, batchTotal));
    split.push(await batchSeconds(batchTotal, 1_000));
    log(`batch round ${round + 1}/${rounds}: one of ${batchTotal} ${whole.at(-1).toFixed(1)} s, by 1,000 ${split.at(-1).toFixed(1)} s`);
  }
  const steadySeconds = smoke ? 2 : 180;
  const windowSeconds = smoke ? 1 : 10;
  const steadyRuns = {};
  for (const [name, dataDir] of [
    ['in memory', false],
    ['with --data-dir', true],
  ]) {
    // The smoke run checks the path, not its latency: one second of warm-up does for that.
    steadyRuns[name] = await steady(dataDir, 300, steadySeconds, windowSeconds, smoke ? 1 : WARMUP_SECONDS);
    log(`steady ${name}: p99 per window ${steadyRuns[name].map((ms) => ms.toFixed(1)).join(' ')} ms`);
  }
  return scaleResults(result, batched, whole, split, steadyRuns, { batchTotal, steadySeconds, windowSeconds });
});

/** A row of a pending case: every one is measured once, lower is better, against no contender. */
function pendingRowOf(caseText) {
  return (contender, unit, values, targets) => ({
    section,
    case: caseText,
    contender,
    unit,
    higherIsBetter: false,
    value: summarise(values),
    ratios: [],
    targets,
  });
}

/** A pending case's memory rows, RSS and live heap, for each `[when, memory]`. */
function memoryRows(row, samples) {
  return samples.flatMap(([when, memory]) => [
    row(`memory per pending message, RSS growth, ${when}`, 'B/msg', [memory.rss], [{ text: '<= 1,024 B', met: memory.rss <= 1024 }]),
    row(`memory per pending message, live heap and external, ${when}`, 'B/msg', [memory.heap], []),
  ]);
}

function restartRow(row, restarts) {
  return row('restart after SIGKILL, spawn to first answer', 'ms', restarts, [
    { text: '<= 500 ms', met: summarise(restarts).median <= 500 },
  ]);
}

/** The rows of the batched pending case (see batchedPending). */
function batchedRows(batched) {
  const row = pendingRowOf(
    `${batched.count.toLocaleString('en')} delayed JSON messages pending, sent through /v2/batch (1,000 a batch), --data-dir`,
  );
  return [
    ...memoryRows(row, [
      ['right after the burst', batched.afterBurst],
      ['right after a restart (SIGKILL, replayed)', batched.afterRestart],
    ]),
    restartRow(row, batched.restarts),
  ];
}

function scaleResults(result, batched, whole, split, steadyRuns, { batchTotal, steadySeconds, windowSeconds }) {
  const n = result.count.toLocaleString('en');
  const pendingRow = pendingRowOf(`${n} delayed 200-byte messages pending, --data-dir`);
  const rows = [
    ...memoryRows(pendingRow, [
      ['right after the burst', result.afterBurst],
      [`idle (V8 settled by itself after ${Math.round(result.settledAfterMs / 1000)} s)`, result.idleAfterBurst],
      ['right after a restart (SIGKILL, replayed)', result.afterRestart],
    ]),
    pendingRow(
      'journal bytes per pending message',
      'B/msg',
      [result.journalBytes],
      [{ text: '<= 400 B', met: result.journalBytes <= 400 }],
    ),
    restartRow(pendingRow, result.restarts),
    ...batchedRows(batched),
    {
      section,
      case: 'nothing pending, --data-dir (an empty journal)',
      contender: 'restart after SIGKILL, spawn to first answer: the process, its modules, no replay',
      unit: 'ms',
      higherIsBetter: false,
      value: summarise(result.emptyRestarts),
      ratios: [],
      targets: [],
    },
    {
      section,
      case: `${batchTotal.toLocaleString('en')} items, --data-dir`,
      contender: `one batch of ${batchTotal.toLocaleString('en')}`,
      unit: 's',
      higherIsBetter: false,
      value: summarise(whole),
      ratios: [{ vs: 'by 1,000', ...summarise(whole.map((seconds, index) => seconds / split[index])) }],
      targets: [{ text: '<= 1.5x by 1,000', met: summarise(whole.map((seconds, index) => seconds / split[index])).median <= 1.5 }],
    },
    {
      section,
      case: `${batchTotal.toLocaleString('en')} items, --data-dir`,
      contender: 'in batches of 1,000, one after another',
      unit: 's',
      higherIsBetter: false,
      value: summarise(split),
      ratios: [],
      targets: [],
    },
  ];
  for (const [name, windows] of Object.entries(steadyRuns)) {
    const worst = Math.max(...windows);
    rows.push({
      section,
      case: `300 enqueues/s for ${steadySeconds} s`,
      contender: `enqueue p99 per ${windowSeconds} s window, ${name}`,
      unit: 'ms',
      higherIsBetter: false,
      value: summarise(windows),
      ratios: [],
      targets: [{ text: '<= 25 ms every window', met: worst <= 25 }],
      detail: windows,
    });
  }
  const checks = [
    `scale: ${n} publishes answered with distinct ids; after each SIGKILL the restarted server answered and still held the first, middle and last message`,
    `scale: every batch answered one distinct id per item; every steady enqueue was delivered`,
  ];
  const notes = [
    `Scale: the dev server (plan "paid", header prefix Upstash) in its own process; the client (createUndiciTransport) in the bench's process, on the same 2 cores. Pending: ${n} publishes of a 200-byte JSON body with a 1-hour delay, 64 in flight; memory is the growth of the server's RSS (and of its live heap plus external memory) over the fresh server's, with no collection forced, as ps shows it: right after the last enqueue was answered, once idle until V8's memory reducer collected and gave pages back by itself (sampled every 5 s until the RSS held below where it was, at most 90 s), and right after the first restart answered; journal bytes are the journal file's size right after the last enqueue was answered, divided by the messages. Restart: the server is killed with SIGKILL and started again on the same --data-dir, from spawning the process to its first answered request (three times, median; the process's own start and module loading included), and the same before the burst with an empty journal on a directory of its own, which is that start alone. Batched pending: the same number of messages with the same body and delay, sent with batchJSON (so each names its content type, as most apps' sends do) 1,000 a batch, one batch after another, on a fresh server and data directory; memory and restarts measured as above. Batch: one POST /v2/batch of ${batchTotal.toLocaleString('en')} items against the same items in 1,000-item batches sent one after another, each on a fresh server and data directory, two rounds. Steady: 300 enqueues/s into 8 queues, open loop (a slow answer does not delay the next send), each delivered to a local 200 sink, after ${WARMUP_SECONDS} s at the same rate that are not measured; the latency is the enqueue call's, grouped by the ${windowSeconds}-second window its send was due in; with --data-dir the journal compacts every 50 s or so meanwhile (its snapshot written in slices of about 256 KB), so those windows include compactions.`,
    `Steady, p99 per window (ms): ${Object.entries(steadyRuns)
      .map(([name, windows]) => `${name} ${windows.map((ms) => ms.toFixed(1)).join(' / ')}`)
      .join('; ')}.`,
  ];
  return { id: 'scale', rows, checks, notes };
}
