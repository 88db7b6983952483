// Measurement 5: the dev server end to end. A MessagingClient enqueues; the dev server (its own
// process) delivers, signed; a node:http destination in this process verifies the signature with
// Mailroom's receiver and answers 2xx. Two figures, with and without --data-dir:
//   sustained: as many enqueues as the server accepts for a few seconds, then until every accepted
//              message is delivered; messages / (first enqueue -> last delivery). 0 lost, 0 duplicated.
//   latency:   a fixed 500 enqueues/s; enqueue call -> delivery arrival, p50 and p99.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMessagingClient, createReceiver } from '@mailroom/core';
import { handleNodeRequest, writeOutbound } from '@mailroom/core/adapter';
import { createUndiciTransport } from '@mailroom/core/undici';
import { check, log, report } from './lib/child.mjs';
import { post } from './lib/http-check.mjs';
import { startProcess } from './lib/processes.mjs';
import { percentile, summarise } from './lib/stats.mjs';

const HOST = new URL('./servers/dev-server-host.mjs', import.meta.url).pathname;
const RELAY = new URL('./servers/relay-host.mjs', import.meta.url).pathname;
const QUEUES = 32;
const RATE = 500;

/** The destination: verifies every delivery and records it by message id. */
async function startDestination(keys) {
  // Without keys (the relay floor, which does not sign) the destination only reads the message.
  const receiver = createReceiver({ ...(keys ?? { verify: false }), headerPrefix: 'Upstash', issuer: 'Upstash', onError: () => {} });
  const deliveries = new Map();
  let refused = 0;
  let onDelivery = () => {};
  let lastDeliveryAt = 0;
  const endpoint = receiver.message((message) => {
    const arrivedAt = performance.now();
    lastDeliveryAt = arrivedAt;
    const seen = deliveries.get(message.messageId);
    if (seen) seen.count++;
    else deliveries.set(message.messageId, { count: 1, latencyMs: arrivedAt - message.body.sentAt });
    onDelivery(message.messageId);
  });
  const server = http.createServer((req, res) => {
    handleNodeRequest(endpoint, req).then((out) => {
      if (out.status !== 200) refused++;
      writeOutbound(res, out);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    deliveries,
    refused: () => refused,
    reset() {
      deliveries.clear();
      refused = 0;
    },
    /** Resolves with the time the last of `ids` was delivered, or undefined after `timeoutMs`. */
    async drained(ids, timeoutMs) {
      // Counted down per delivery, never rescanned: a scan per delivery would cost this process
      // (which also enqueues and verifies) time quadratic in the number of messages.
      const waiting = new Set([...ids].filter((id) => !deliveries.has(id)));
      if (waiting.size === 0) return lastDeliveryAt;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          onDelivery = () => {};
          resolve(undefined);
        }, timeoutMs);
        onDelivery = (id) => {
          if (waiting.delete(id) && waiting.size === 0) {
            clearTimeout(timer);
            onDelivery = () => {};
            resolve(lastDeliveryAt);
          }
        };
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        // The dev server's keep-alive connections would otherwise hold close() for their idle timeout.
        server.closeAllConnections();
      }),
  };
}

function tally(ids, destination) {
  let lost = 0;
  let duplicated = 0;
  for (const id of ids) {
    const d = destination.deliveries.get(id);
    if (!d) lost++;
    else if (d.count > 1) duplicated += d.count - 1;
  }
  const unexpected = [...destination.deliveries.keys()].filter((id) => !ids.has(id)).length;
  return { lost, duplicated, unexpected };
}

async function sustained(client, destination, { seconds, concurrency }) {
  destination.reset();
  const ids = new Set();
  let n = 0;
  const start = performance.now();
  const stopAt = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < stopAt) {
        const seq = n++;
        const { messageId } = await client.enqueueJSON({
          queue: `bench-${seq % QUEUES}`,
          destination: destination.url,
          body: { seq, sentAt: performance.now() },
        });
        ids.add(messageId);
      }
    }),
  );
  const enqueuedAt = performance.now();
  const doneAt = await destination.drained(ids, 60_000);
  const counts = tally(ids, destination);
  return {
    accepted: ids.size,
    enqueueRate: ids.size / ((enqueuedAt - start) / 1000),
    rate: doneAt ? ids.size / ((doneAt - start) / 1000) : 0,
    drained: Boolean(doneAt),
    ...counts,
  };
}

async function fixedRate(client, destination, { seconds }) {
  destination.reset();
  const ids = new Set();
  const total = Math.round(RATE * seconds);
  const start = performance.now();
  const sends = [];
  for (let seq = 0; seq < total; seq++) {
    const due = start + (seq * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sends.push(
      client
        .enqueueJSON({ queue: `bench-${seq % QUEUES}`, destination: destination.url, body: { seq, sentAt: performance.now() } })
        .then(({ messageId }) => ids.add(messageId)),
    );
  }
  await Promise.all(sends);
  const achievedRate = total / ((performance.now() - start) / 1000);
  const doneAt = await destination.drained(ids, 30_000);
  const latencies = [...ids].map((id) => destination.deliveries.get(id)?.latencyMs).filter((v) => v !== undefined);
  return {
    accepted: ids.size,
    achievedRate,
    drained: Boolean(doneAt),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...tally(ids, destination),
  };
}

// BENCH_CPU_PROF=<dir> profiles the dev server's and the relay's processes (node --cpu-prof), for
// finding where the time goes and comparing the two.
function profileArgs() {
  return process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
}

async function scenario({ dataDir, smoke }) {
  const host = await startProcess(HOST, { env: dataDir ? { BENCH_DATA_DIR: dataDir } : {}, execArgv: profileArgs() });
  const transport = createUndiciTransport({ connections: 128 });
  const destination = await startDestination({ currentSigningKey: host.info.currentSigningKey, nextSigningKey: host.info.nextSigningKey });
  try {
    const client = createMessagingClient({ baseUrl: host.info.url, token: host.info.token, headerPrefix: 'Upstash', env: {}, transport });
    // Correctness: one message arrives, verified, exactly once; a forged delivery is refused.
    const probe = await client.enqueueJSON({
      queue: 'bench-probe',
      destination: destination.url,
      body: { seq: -1, sentAt: performance.now() },
    });
    check(
      (await destination.drained(new Set([probe.messageId]), 10_000)) !== undefined,
      `dev server${dataDir ? ' --data-dir' : ''}: a probe message was not delivered within 10 s`,
    );
    check(destination.refused() === 0, 'dev server: the destination refused a delivery signed by the dev server');
    const forged = await post(destination.url, {
      headers: { 'content-type': 'application/json', 'upstash-signature': 'forged.token.value' },
      body: '{"seq":0,"sentAt":0}',
    });
    check(forged.status === 401, `dev server destination answered ${forged.status} to a forged signature`);

    const before = await host.call({ cmd: 'stats' });
    const ownBefore = process.cpuUsage();
    const load = await sustained(client, destination, { seconds: smoke ? 0.5 : 4, concurrency: 64 });
    const own = process.cpuUsage(ownBefore);
    const stats = await host.call({ cmd: 'stats' });
    // Where the CPU went during the sustained run: the dev server's process, and this one (the
    // enqueuing client plus the verifying destination).
    load.cpuPerMessageMicros = {
      devServer: Math.round(((stats.cpuMs - before.cpuMs) * 1000) / load.accepted),
      clientAndDestination: Math.round((own.user + own.system) / load.accepted),
    };
    check(
      load.drained && load.lost === 0,
      `dev server: ${load.lost} of ${load.accepted} accepted messages were not delivered within 60 s (${JSON.stringify(stats)})`,
    );
    check(
      load.duplicated === 0 && load.unexpected === 0,
      `dev server: ${load.duplicated} duplicate and ${load.unexpected} unexpected deliveries`,
    );
    check(destination.refused() === 0, 'dev server: the destination refused deliveries under load');
    const latency = await fixedRate(client, destination, { seconds: smoke ? 0.5 : 4 });
    check(
      latency.drained && latency.lost === 0 && latency.duplicated === 0,
      `dev server at ${RATE}/s: ${latency.lost} lost, ${latency.duplicated} duplicated`,
    );
    log(
      `dev server${dataDir ? ' --data-dir' : ''}: sustained ${load.rate.toFixed(0)} msg/s (${load.accepted} msgs, enqueue ${load.enqueueRate.toFixed(0)}/s, CPU µs/msg ${JSON.stringify(load.cpuPerMessageMicros)}); at ${latency.achievedRate.toFixed(0)}/s p50 ${latency.p50.toFixed(2)} ms p99 ${latency.p99.toFixed(2)} ms; server ${JSON.stringify(stats)}`,
    );
    return { load, latency, stats };
  } finally {
    await destination.close();
    await transport.close();
    await host.close();
  }
}

/** The bare relay under the same sustained load: its CPU per message is the floor of the dev server's. */
async function relayScenario({ smoke }) {
  const relay = await startProcess(RELAY, { execArgv: profileArgs() });
  const transport = createUndiciTransport({ connections: 128 });
  const destination = await startDestination(undefined);
  try {
    const client = createMessagingClient({ baseUrl: relay.info.url, token: 'relay', headerPrefix: 'Upstash', env: {}, transport });
    const before = await relay.call({ cmd: 'stats' });
    const load = await sustained(client, destination, { seconds: smoke ? 0.5 : 4, concurrency: 64 });
    const stats = await relay.call({ cmd: 'stats' });
    check(load.drained && load.lost === 0 && load.duplicated === 0, `relay floor: ${load.lost} lost, ${load.duplicated} duplicated`);
    load.cpuPerMessageMicros = { relay: Math.round(((stats.cpuMs - before.cpuMs) * 1000) / load.accepted) };
    log(`relay floor: sustained ${load.rate.toFixed(0)} msg/s, CPU µs/msg ${load.cpuPerMessageMicros.relay}`);
    return load;
  } finally {
    await destination.close();
    await transport.close();
    await relay.close();
  }
}

await report(async ({ smoke }) => {
  const relay = await relayScenario({ smoke });
  const rows = [];
  const checks = [];
  for (const withDataDir of [false, true]) {
    const dataDir = withDataDir ? mkdtempSync(path.join(os.tmpdir(), 'mailroom-bench-')) : undefined;
    try {
      const { load, latency } = await scenario({ dataDir, smoke });
      const label = withDataDir ? 'with --data-dir (journal, fsync)' : 'in memory';
      const cpuRatio = load.cpuPerMessageMicros.devServer / relay.cpuPerMessageMicros.relay;
      rows.push({
        section: '5. Dev server',
        case: 'CPU per message, sustained',
        contender: label,
        unit: 'µs/msg',
        higherIsBetter: false,
        value: summarise([load.cpuPerMessageMicros.devServer]),
        ratios: [{ vs: 'relay floor time', median: cpuRatio, min: cpuRatio, max: cpuRatio }],
        targets: [
          { text: '<= 2x relay floor', met: cpuRatio <= 2 },
          { text: '0 lost', met: load.lost === 0 },
        ],
      });
      rows.push({
        section: '5. Dev server',
        case: `sustained, ${QUEUES} queues`,
        contender: label,
        unit: 'msg/s',
        higherIsBetter: true,
        value: summarise([load.rate]),
        ratios: [],
        // msg/s is information: the target is CPU per message against the relay floor (above).
        targets: [{ text: '0 lost, 0 duplicated', met: load.lost === 0 && load.duplicated === 0 }],
        detail: load,
      });
      rows.push({
        section: '5. Dev server',
        case: `latency p50 at ${RATE}/s`,
        contender: label,
        unit: 'ms',
        higherIsBetter: false,
        value: summarise([latency.p50]),
        ratios: [],
        targets: [{ text: 'p50 < 5 ms', met: latency.p50 < 5 }],
        detail: latency,
      });
      rows.push({
        section: '5. Dev server',
        case: `latency p99 at ${RATE}/s`,
        contender: label,
        unit: 'ms',
        higherIsBetter: false,
        value: summarise([latency.p99]),
        ratios: [],
        targets: [],
      });
      checks.push(
        `dev server ${label}: a probe delivered and verified; forged signature 401; ${load.accepted + latency.accepted} messages each delivered exactly once`,
      );
    } finally {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  }
  rows.push({
    section: '5. Dev server',
    case: 'CPU per message, sustained',
    contender: 'floor: bare node:http relay (accept, answer, POST on)',
    unit: 'µs/msg',
    higherIsBetter: false,
    value: summarise([relay.cpuPerMessageMicros.relay]),
    ratios: [],
    targets: [],
  });
  checks.push(`relay floor: ${relay.accepted} messages each delivered exactly once`);
  const notes = [
    `Dev server: started by startDevServer (plan "paid", 100 deliveries in flight, header prefix and issuer Upstash) in its own process; a MessagingClient (createUndiciTransport) and a node:http destination verifying every delivery with Mailroom's receiver share the other process. Sustained: 64 enqueues in flight spread over ${QUEUES} queues for 4 s, then until the last accepted message is delivered; the rate is accepted messages over that whole time. Latency: ${RATE} enqueues/s for 4 s, from the enqueue call to the delivery reaching the handler.`,
    ...rows
      .filter((r) => r.detail?.cpuPerMessageMicros)
      .map(
        (r) =>
          `Dev server ${r.contender}: ${r.detail.accepted} messages, enqueue rate ${r.detail.enqueueRate.toFixed(0)}/s, CPU per message ${r.detail.cpuPerMessageMicros.devServer} µs in the dev server and ${r.detail.cpuPerMessageMicros.clientAndDestination} µs in the client + destination process.`,
      ),
  ];
  return { id: 'dev-server', rows, checks, notes };
});
