// Measurements 2a-2c: a framework's throughput (Express, Fastify, Hono on Node; `--framework=`), 10
// connections, 1 KiB JSON, autocannon in a separate process. Each framework's app has the same four
// routes (servers/<framework>-app.mjs): bare, Mailroom, the vendor's Receiver, the hand-written floor.
// Two figures per route: req/s, and the server process's CPU time per request. The targets are on
// the CPU time: req/s on 2 cores moves with whatever else runs (a load generator, a GC of its own),
// CPU per request much less. The server and the load generator are pinned to different cores.
import { check, log, report } from './lib/child.mjs';
import { ISSUER, PUBLIC_URL, orderBody, serviceToken, tamper, CURRENT_KEY, NEXT_KEY, TRACE_PARENT } from './lib/fixtures.mjs';
import { post } from './lib/http-check.mjs';
import { LOAD_WORKER, pinToCpu, startProcess } from './lib/processes.mjs';
import { alternate } from './lib/rounds.mjs';
import { pairedRatio, summarise } from './lib/stats.mjs';

const FRAMEWORKS = {
  express: { section: '2. Express', bare: 'bare express.json() (no check)', note: 'express.text' },
  fastify: { section: '2b. Fastify', bare: 'bare Fastify JSON route (no check)', note: 'a text content-type parser' },
  hono: { section: '2c. Hono on Node', bare: 'bare c.req.json() (no check)', note: 'c.req.text()' },
};
const framework = process.argv.find((arg) => arg.startsWith('--framework='))?.slice('--framework='.length) ?? 'express';
const SETTINGS = FRAMEWORKS[framework];
if (!SETTINGS) throw new Error(`unknown --framework=${framework}: use ${Object.keys(FRAMEWORKS).join(', ')}`);
const SERVER = new URL(`./servers/${framework}-app.mjs`, import.meta.url).pathname;
const CONNECTIONS = 10;

function deliveryHeaders(token) {
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Upstash-QStash',
    'upstash-message-id': 'msg_26hZCxZCuWyyTWPmSVBrNCtiJBPMRnMNQ3KDRsqsN9SoRqekZbNXqBs8KbhJ6Yj',
    'upstash-retried': '0',
  };
  if (token) headers['upstash-signature'] = token;
  return headers;
}

await report(async ({ smoke }) => {
  const body = orderBody(1024);
  const server = await startProcess(SERVER, { env: { NODE_ENV: 'production' } });
  const loader = await startProcess(LOAD_WORKER);
  const pinned = pinToCpu(server.pid, 0) && pinToCpu(loader.pid, 1);
  try {
    const base = `http://127.0.0.1:${server.info.port}`;
    const routes = {
      bare: { path: '/bare', token: undefined },
      mailroom: {
        path: '/mailroom/orders',
        token: await serviceToken({ key: CURRENT_KEY, url: `${PUBLIC_URL}/mailroom/orders`, rawBody: body }),
      },
      vendor: {
        path: '/vendor/orders',
        token: await serviceToken({ key: CURRENT_KEY, url: `${PUBLIC_URL}/vendor/orders`, rawBody: body }),
      },
      floor: {
        path: '/floor/orders',
        token: await serviceToken({ key: CURRENT_KEY, url: `${PUBLIC_URL}/floor/orders`, rawBody: body }),
      },
      // Express only: the Mailroom route with a memory idempotency store, a new message id per request.
      ...(framework === 'express'
        ? {
            idempotent: {
              path: '/idempotent/orders',
              token: await serviceToken({ key: CURRENT_KEY, url: `${PUBLIC_URL}/idempotent/orders`, rawBody: body }),
              uniqueHeader: 'upstash-message-id',
              signAs: { key: CURRENT_KEY, issuer: ISSUER, url: `${PUBLIC_URL}/idempotent/orders`, header: 'upstash-signature' },
            },
            // A traced send's delivery carries its trace context as a forwarded header.
            untraced: {
              path: '/untraced/orders',
              token: await serviceToken({ key: CURRENT_KEY, url: `${PUBLIC_URL}/untraced/orders`, rawBody: body }),
              extraHeaders: { traceparent: TRACE_PARENT },
            },
            traced: {
              path: '/traced/orders',
              token: await serviceToken({ key: CURRENT_KEY, url: `${PUBLIC_URL}/traced/orders`, rawBody: body }),
              extraHeaders: { traceparent: TRACE_PARENT },
            },
          }
        : {}),
    };

    // Correctness first: a broken path must never report a speed.
    const checks = [];
    const expect = async (name, url, options, status) => {
      const got = await post(url, options);
      check(got.status === status, `${name}: expected ${status}, got ${got.status} ${got.body.slice(0, 200)}`);
    };
    await expect('bare, JSON body', base + routes.bare.path, { headers: deliveryHeaders(), body }, 200);
    for (const name of ['mailroom', 'vendor', 'floor']) {
      const { path, token } = routes[name];
      const nextToken = await serviceToken({ key: NEXT_KEY, url: `${PUBLIC_URL}${path}`, rawBody: body });
      await expect(`${name}, valid token`, base + path, { headers: deliveryHeaders(token), body }, 200);
      await expect(`${name}, next-key token`, base + path, { headers: deliveryHeaders(nextToken), body }, 200);
      await expect(`${name}, tampered body`, base + path, { headers: deliveryHeaders(token), body: tamper(body) }, 401);
      await expect(
        `${name}, token for another route`,
        base + path,
        { headers: deliveryHeaders(routes[name === 'mailroom' ? 'vendor' : 'mailroom'].token), body },
        401,
      );
    }
    checks.push(
      `${framework}: bare 200; mailroom and vendor routes 200 for valid and next-key tokens, 401 for a tampered body and for a token signed for another URL`,
    );

    const durationSeconds = smoke ? 0.5 : 3;
    const cpuMicros = Object.fromEntries(Object.keys(routes).map((name) => [name, []]));
    if (routes.idempotent) {
      const { path, token } = routes.idempotent;
      await expect('idempotent, valid token', base + path, { headers: deliveryHeaders(token), body }, 200);
      const fresh = await serviceToken({ key: CURRENT_KEY, url: `${PUBLIC_URL}${path}`, rawBody: body });
      const again = await post(base + path, { headers: deliveryHeaders(fresh), body });
      check(
        again.status === 200 && again.headers['mailroom-already-handled'] === 'true',
        'idempotent: a repeated message id was handled again',
      );
      await expect('idempotent, a replayed token', base + path, { headers: deliveryHeaders(token), body }, 401);
      checks.push(
        `${framework}: the idempotent route answers a repeated message id 200 with Mailroom-Already-Handled, and a replayed token 401`,
      );
    }
    for (const name of ['untraced', 'traced']) {
      if (!routes[name]) continue;
      const { path, token, extraHeaders } = routes[name];
      await expect(`${name}, valid token`, base + path, { headers: { ...deliveryHeaders(token), ...extraHeaders }, body }, 200);
      await expect(
        `${name}, tampered body`,
        base + path,
        { headers: { ...deliveryHeaders(token), ...extraHeaders }, body: tamper(body) },
        401,
      );
    }
    if (routes.traced) checks.push(`${framework}: the traced routes answer a valid delivery 200 and a tampered one 401`);
    const contenders = Object.entries(routes).map(([name, { path, token, uniqueHeader, signAs, extraHeaders }]) => ({
      name,
      async measure(round) {
        const cpuBefore = await server.call({ cmd: 'cpu' });
        const result = await loader.call({
          options: {
            url: base + path,
            headers: { ...deliveryHeaders(token), ...extraHeaders },
            body: body.toString(),
            connections: CONNECTIONS,
            durationSeconds,
            uniqueHeader,
            signAs,
          },
        });
        check(
          result.non2xx === 0 && result.errors === 0,
          `${name} under load: ${result.non2xx} non-2xx answers and ${result.errors} errors (${JSON.stringify(result.statusCodes)})`,
        );
        const cpu = (await server.call({ cmd: 'cpu' })) - cpuBefore;
        // The warm-up round's figure is discarded, as alternate() discards its rate.
        if (smoke || round > 0) cpuMicros[name].push(cpu / (result.ok + result.non2xx));
        return result.rate;
      },
    }));
    const samples = await alternate(contenders, { rounds: smoke ? 1 : 8, warmup: !smoke, log: (line) => log(`${framework} ${line}`) });
    checks.push(`${framework}: no non-2xx answer or socket error during any load run`);
    log(
      `${framework} req/s: ${Object.keys(routes)
        .map((n) => `${n} ${summarise(samples[n]).median.toFixed(0)}`)
        .join(', ')}; server CPU µs/req: ${Object.keys(routes)
        .map((n) => `${n} ${summarise(cpuMicros[n]).median.toFixed(1)}`)
        .join(', ')}${pinned ? '' : ' (not pinned: no taskset or one core)'}`,
    );

    const label = {
      bare: SETTINGS.bare,
      mailroom: 'mailroom destination (sig+JSON+zod)',
      vendor: 'vendor Receiver (sig+JSON+zod)',
      floor: 'floor: hand-written verifying route (node:crypto+JSON+zod)',
      idempotent: 'mailroom destination + idempotency (memory store), a new message id each',
      untraced: 'mailroom destination + tracing, no OpenTelemetry SDK started (tracing off)',
      traced: 'mailroom destination + tracing, an SDK recording every span (tracing on)',
    };
    const rows = [];
    for (const name of Object.keys(routes)) {
      const rate = {
        section: SETTINGS.section,
        case: `${CONNECTIONS} conns, 1 KiB JSON`,
        contender: label[name],
        unit: 'req/s',
        higherIsBetter: true,
        value: summarise(samples[name]),
        ratios: name === 'bare' ? [] : [{ vs: 'bare', ...pairedRatio(samples[name], samples.bare) }],
        targets: [],
      };
      // Lower is better: a ratio to the floor's time of 1.05x is 0.95x its throughput.
      const cpu = {
        section: SETTINGS.section,
        case: `${CONNECTIONS} conns, 1 KiB JSON, server CPU per request`,
        contender: label[name],
        unit: 'µs/req',
        value: summarise(cpuMicros[name]),
        ratios: [],
        targets: [],
      };
      if (name === 'mailroom') {
        rate.ratios.push({ vs: 'vendor', ...pairedRatio(samples.mailroom, samples.vendor) });
        rate.ratios.push({ vs: 'floor', ...pairedRatio(samples.mailroom, samples.floor) });
        const vendor = pairedRatio(cpuMicros.vendor, cpuMicros.mailroom);
        const floor = pairedRatio(cpuMicros.mailroom, cpuMicros.floor);
        cpu.ratios.push({ vs: 'vendor', ...vendor }, { vs: 'floor time', ...floor });
        cpu.targets.push(
          { text: '<= 1.05x floor time (>= 0.95x floor)', met: floor.median <= 1.05 },
          { text: '>= 1.25x vendor', met: vendor.median >= 1.25 },
        );
      }
      if (name === 'idempotent') {
        const cost = pairedRatio(cpuMicros.idempotent, cpuMicros.mailroom);
        cpu.ratios.push({ vs: 'mailroom destination time', ...cost });
        cpu.targets.push({ text: '<= 1.10x the route without', met: cost.median <= 1.1 });
      }
      if (name === 'untraced' || name === 'traced') {
        const cost = pairedRatio(cpuMicros[name], cpuMicros.mailroom);
        cpu.ratios.push({ vs: 'mailroom destination time', ...cost });
        if (name === 'untraced') cpu.targets.push({ text: '<= 1.02x the route without', met: cost.median <= 1.02 });
      }
      rows.push(rate, cpu);
    }
    const notes = [
      `${SETTINGS.section.replace(/^[\w.]+ /, '')}: one app (NODE_ENV=production) with four routes; autocannon (10 connections, 1 KiB JSON body with the Upstash delivery headers) in its own process, one route at a time, 3 s per run, the server's CPU time per request read from its process${pinned ? ', the server pinned to one core and the load generator to the other' : ' (unpinned: no taskset or one core)'}. The vendor route is its Receiver as documented (${SETTINGS.note}, verify with the URL) plus the same JSON.parse and zod schema, answering 401 when verify throws.`,
    ];
    return { id: framework, rows, checks, notes };
  } finally {
    await loader.close();
    await server.close();
  }
});
