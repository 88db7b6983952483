// Measurement 4: sending. MessagingClient.enqueueJSON against a local stub of the messaging
// interface (node:http in its own process, 127.0.0.1), against the vendor's Client.publishJSON
// pointed at the same stub. 10 calls in flight per client.
import { createMessagingClient, NetworkError } from '@mailroom/core';
import { createUndiciTransport } from '@mailroom/core/undici';
import { Client } from '@upstash/qstash';
import http from 'node:http';
import { Pool } from 'undici';
import { check, log, report } from './lib/child.mjs';
import { startProcess } from './lib/processes.mjs';
import { alternate, throughput } from './lib/rounds.mjs';
import { pairedRatio, summarise } from './lib/stats.mjs';

const STUB = new URL('./servers/enqueue-stub.mjs', import.meta.url).pathname;
const CONCURRENCY = 10;
const DESTINATION = 'https://bench.mailroom.test/api/orders';
const PAYLOAD = {
  orderId: 'ord_01HZX3K9Q7Y2',
  customer: { id: 'cus_42', email: 'ada@example.com' },
  items: [{ sku: 'SKU-000001', quantity: 2, priceCents: 1299 }],
  currency: 'EUR',
};

/**
 * The headers of the request every floor sends: exactly the ones Mailroom's client sends, so a ratio
 * measures the client's own work and not a different request (in fetch every header costs its
 * conversions: two more were about 3% of a call).
 */
function requestHeaders(token) {
  return {
    accept: 'application/json',
    'user-agent': '@mailroom/core',
    'content-type': 'application/json',
    authorization: `Bearer ${token}`,
  };
}

/** The floor under any client: one POST and its JSON answer straight over a keep-alive pool. */
function rawNodeHttp(agent, url, token) {
  const body = JSON.stringify(PAYLOAD);
  const headers = { ...requestHeaders(token), 'content-length': Buffer.byteLength(body) };
  return () =>
    new Promise((resolve, reject) => {
      const request = http.request(url, { method: 'POST', agent, headers }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(body);
    });
}

/** What the global fetch costs by itself: the POST and JSON answer the vendor's client makes, nothing else. */
function rawFetch(url, token) {
  const headers = requestHeaders(token);
  return async () => (await fetch(url, { method: 'POST', headers, body: JSON.stringify(PAYLOAD) })).json();
}

/** The same with a per-request timeout, as any client that enforces one over fetch needs: a signal and a timer. */
function rawFetchWithTimeout(url, token) {
  const headers = requestHeaders(token);
  return async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30_000);
    try {
      return await (await fetch(url, { method: 'POST', headers, body: JSON.stringify(PAYLOAD), signal: controller.signal })).json();
    } finally {
      clearTimeout(timer);
    }
  };
}

function rawUndici(pool, path, token) {
  const body = JSON.stringify(PAYLOAD);
  const headers = requestHeaders(token);
  return async () => (await pool.request({ path, method: 'POST', headers, body })).body.json();
}

await report(async ({ smoke }) => {
  const stub = await startProcess(STUB);
  const baseUrl = `http://127.0.0.1:${stub.info.port}`;
  const token = stub.info.token;
  const undiciTransport = createUndiciTransport();
  const pool = new Pool(baseUrl, { connections: 64, pipelining: 1 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  try {
    const client = (options = {}) => createMessagingClient({ baseUrl, token, headerPrefix: 'Upstash', env: {}, ...options });
    const enqueue = (c) => () => c.enqueueJSON({ queue: 'orders', destination: DESTINATION, body: PAYLOAD });
    const vendor = new Client({ baseUrl, token, enableTelemetry: false });
    const contenders = [
      { name: 'mailroom enqueueJSON (global fetch)', key: 'fetch', send: enqueue(client()) },
      {
        name: 'mailroom enqueueJSON + createUndiciTransport()',
        key: 'undiciTransport',
        send: enqueue(client({ transport: undiciTransport })),
      },
      { name: 'vendor publishJSON (global fetch)', key: 'vendor', send: () => vendor.publishJSON({ url: DESTINATION, body: PAYLOAD }) },
      {
        name: 'floor: global fetch, no client',
        key: 'rawFetch',
        raw: true,
        send: rawFetch(`${baseUrl}/v2/enqueue/orders/${DESTINATION}`, token),
      },
      {
        name: 'floor: global fetch + timeout signal, no client',
        key: 'rawFetchTimeout',
        raw: true,
        send: rawFetchWithTimeout(`${baseUrl}/v2/enqueue/orders/${DESTINATION}`, token),
      },
      {
        name: 'floor: node:http Agent, no client',
        key: 'rawHttp',
        raw: true,
        send: rawNodeHttp(agent, `${baseUrl}/v2/enqueue/orders/${DESTINATION}`, token),
      },
      {
        name: 'floor: undici Pool.request, no client',
        key: 'rawUndici',
        raw: true,
        send: rawUndici(pool, `/v2/enqueue/orders/${DESTINATION}`, token),
      },
    ];

    // Correctness: each client reaches the stub with the right path, content type and body, and
    // gets the message id back; a dead port is a NetworkError through both transports too.
    for (const c of contenders) {
      await stub.call({ cmd: 'record' });
      const result = await c.send().catch((error) => {
        throw new Error(`${c.name}: ${error.message} (${error.cause?.message ?? error.cause})`);
      });
      const { last, bad } = await stub.call({ cmd: 'stats' });
      check(
        typeof result?.messageId === 'string' && result.messageId.startsWith('msg_'),
        `${c.name}: no messageId in ${JSON.stringify(result)}`,
      );
      check(bad === 0, `${c.name}: the stub refused a request`);
      const path = c.key === 'vendor' ? `/v2/publish/${DESTINATION}` : `/v2/enqueue/orders/${DESTINATION}`;
      check(last?.method === 'POST' && last.url === path, `${c.name}: sent ${last?.method} ${last?.url}, expected POST ${path}`);
      check(
        last.contentType?.startsWith('application/json') && JSON.stringify(JSON.parse(last.body)) === JSON.stringify(PAYLOAD),
        `${c.name}: body or content type differs`,
      );
      // The floors send the client's own headers: if the client's change, the floors must follow.
      if (c.key === 'fetch' || c.key === 'undiciTransport') {
        const expected = requestHeaders(token);
        check(
          last.accept === expected.accept && last.userAgent === expected['user-agent'],
          `${c.name}: sent Accept ${last.accept} and User-Agent ${last.userAgent}; update requestHeaders() so the floors send the same`,
        );
      }
    }
    const deadTransport = createUndiciTransport();
    try {
      for (const [name, option] of [
        ['global fetch', {}],
        ['createUndiciTransport', { transport: deadTransport }],
      ]) {
        try {
          await createMessagingClient({ baseUrl: 'http://127.0.0.1:9', token, env: {}, retry: false, ...option }).enqueueJSON({
            queue: 'q',
            destination: DESTINATION,
            body: {},
          });
          check(false, `${name}: an unreachable port did not fail`);
        } catch (error) {
          check(error instanceof NetworkError, `${name}: an unreachable port gave ${error?.name}, expected NetworkError`);
        }
      }
    } finally {
      await deadTransport.close();
    }
    const checks = [
      `sending: ${contenders.length} clients reach the stub with POST, the right path, JSON content type and body, and return its messageId; global fetch and createUndiciTransport map a refused connection to NetworkError`,
    ];

    const before = (await stub.call({ cmd: 'stats' })).count;
    let sent = 0;
    // Client CPU per call: the stub has a core of its own, so the client's CPU is what limits a rate.
    const cpu = Object.fromEntries(contenders.map((c) => [c.key, []]));
    const samples = await alternate(
      contenders.map((c) => ({
        name: c.key,
        async measure() {
          const callsBefore = sent;
          const usage = process.cpuUsage();
          const rate = await throughput(
            async () => {
              await c.send();
              sent++;
            },
            { concurrency: CONCURRENCY, durationMs: smoke ? 250 : 1000 },
          );
          const used = process.cpuUsage(usage);
          cpu[c.key].push((used.user + used.system) / (sent - callsBefore));
          return rate;
        },
      })),
      { rounds: smoke ? 1 : 11, warmup: true },
    );
    const after = await stub.call({ cmd: 'stats' });
    check(
      after.count - before === sent && after.bad === 0,
      `sending: the stub counted ${after.count - before} enqueues for ${sent} resolved calls (${after.bad} refused)`,
    );
    checks.push('sending: every resolved call was counted once by the stub, none refused');
    log(`sending calls/s: ${contenders.map((c) => `${c.key} ${summarise(samples[c.key]).median.toFixed(0)}`).join(', ')}`);

    const rows = contenders.map((c) => {
      const row = {
        section: '4. Sending',
        case: `${CONCURRENCY} in flight, local stub`,
        contender: c.name,
        unit: 'calls/s',
        higherIsBetter: true,
        value: summarise(samples[c.key]),
        ratios: [],
        targets: [],
      };
      if (c.key !== 'vendor') row.ratios.push({ vs: 'vendor', ...pairedRatio(samples[c.key], samples.vendor) });
      // Each client path against the bare request it makes, measured in the same run: how close to the
      // limit of its transport the client's own work (options, headers, timeout, typed answer) keeps it.
      const floorOf = { fetch: 'rawFetchTimeout', undiciTransport: 'rawUndici' }[c.key];
      if (floorOf) {
        const ratio = pairedRatio(samples[c.key], samples[floorOf]);
        row.ratios.push({ vs: 'floor', ...ratio });
        row.targets.push({ text: '>= 0.95x floor', met: ratio.median >= 0.95 });
      }
      return row;
    });
    const notes = [
      'Sending: 10 calls in flight against a node:http stub of the enqueue endpoint in its own process (it answers {"messageId"} with a Content-Length, as the service does), 11 rounds of 1 s per contender (the fetch paths vary by several per cent from run to run). createUndiciTransport() is the transport option of @mailroom/core/undici (undici ^7, an optional peer) with its defaults; the floor rows are a bare POST with the client\'s own four headers and a JSON answer, with no client at all, so "floor: global fetch" is the most any client on the default fetch can reach, the vendor\'s included, and "+ timeout signal" the most one that enforces a timeout per request can (the vendor\'s sets none).',
      `Sending, client CPU per call (median µs): ${contenders.map((c) => `${c.name} ${summarise(cpu[c.key]).median.toFixed(0)}`).join('; ')}.`,
    ];
    return { id: 'sending', rows, checks, notes };
  } finally {
    await undiciTransport.close();
    agent.destroy();
    await pool.close();
    await stub.close();
  }
});
