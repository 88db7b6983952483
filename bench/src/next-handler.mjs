// Measurement 3: Next.js App Router route handlers called in-process with a Web Request, as Next
// calls them. Three handlers doing the same job:
//   plain     reads JSON, validates with zod, calls the handler: no verification (the ceiling)
//   mailroom  an @mailroom/adapters/next destination: signature, JSON parse, zod, handler
//   vendor    the vendor's verifySignatureAppRouter wrapped around the plain handler
//   floor     a minimal hand-written verifying route handler (node:crypto, JSON.parse, zod)
import { defineDestination } from '@mailroom/core';
import { createMailroom } from '@mailroom/adapters/next';
import { verifySignatureAppRouter } from '@upstash/qstash/nextjs';
import { check, log, report } from './lib/child.mjs';
import {
  CURRENT_KEY,
  ISSUER,
  MAILROOM_OPTIONS,
  NEXT_KEY,
  PUBLIC_URL,
  orderBody,
  orderSchema,
  serviceToken,
  tamper,
} from './lib/fixtures.mjs';
import { createFloorVerifier } from './lib/floor-verifier.mjs';
import { alternate, microsPerOp } from './lib/rounds.mjs';
import { pairedRatio, summarise } from './lib/stats.mjs';

const URL = `${PUBLIC_URL}/api/orders`;
let handled = 0;
const handle = (order) => {
  if (order.items.length > 0) handled++;
};

async function plain(request) {
  const parsed = orderSchema.safeParse(await request.json());
  if (!parsed.success) return new Response(null, { status: 422 });
  handle(parsed.data);
  return new Response(null, { status: 200 });
}

const floorVerify = createFloorVerifier({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, issuer: ISSUER });

/** The floor: read the bytes once, verify with node:crypto, parse and validate. */
async function floor(request) {
  const bytes = Buffer.from(await request.arrayBuffer());
  try {
    floorVerify({ signature: request.headers.get('upstash-signature') ?? '', bytes, url: request.url });
  } catch {
    return new Response(null, { status: 401 });
  }
  const parsed = orderSchema.safeParse(JSON.parse(bytes.toString('utf8')));
  if (!parsed.success) return new Response(null, { status: 422 });
  handle(parsed.data);
  return new Response(null, { status: 200 });
}

const handlers = {
  plain,
  mailroom: createMailroom(MAILROOM_OPTIONS).destination(
    defineDestination({ name: 'orders', path: '/api/orders', schema: orderSchema }),
    (message) => handle(message.body),
  ),
  vendor: verifySignatureAppRouter(plain, { currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY }),
  floor,
};

const request = (token, body) =>
  new Request(URL, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Upstash-QStash',
      'upstash-retried': '0',
      ...(token ? { 'upstash-signature': token } : {}),
    },
    body,
  });

async function status(handler, token, body) {
  try {
    return (await handler(request(token, body))).status;
  } catch {
    return 'threw';
  }
}

await report(async ({ smoke }) => {
  const body = orderBody(1024);
  const text = body.toString();
  const valid = await serviceToken({ key: CURRENT_KEY, url: URL, rawBody: body });
  const next = await serviceToken({ key: NEXT_KEY, url: URL, rawBody: body });
  const tampered = tamper(body).toString();

  check((await status(handlers.plain, undefined, text)) === 200, 'plain handler does not answer 200');
  for (const name of ['mailroom', 'vendor', 'floor']) {
    const h = handlers[name];
    check((await status(h, valid, text)) === 200, `${name}: valid token not answered 200`);
    check((await status(h, next, text)) === 200, `${name}: next-key token not answered 200`);
    const rejected = await status(h, valid, tampered);
    // The vendor's wrapper throws on a bad signature (Next turns that into a 500); ours answers 401.
    check(
      name !== 'vendor' ? rejected === 401 : rejected === 'threw' || rejected === 401 || rejected === 403,
      `${name}: tampered body answered ${rejected}`,
    );
  }
  const checks = [
    'next: plain 200; mailroom 200 for valid and next-key tokens and 401 for a tampered body; vendor 200 for valid and next-key, rejects (throws) a tampered body',
  ];

  const sliceMs = smoke ? 60 : 150;
  const samples = await alternate(
    Object.entries(handlers).map(([name, h]) => ({
      name,
      async measure() {
        const before = handled;
        const micros = await microsPerOp(async () => {
          const response = await h(request(valid, text));
          if (response.status !== 200) throw new Error(`${name} answered ${response.status} under load`);
        }, sliceMs);
        check(handled > before, `${name}: the handler was never called`);
        return 1e6 / micros;
      },
    })),
    { rounds: smoke ? 1 : 15, warmup: true },
  );
  log(
    `next calls/s: ${Object.keys(handlers)
      .map((n) => `${n} ${summarise(samples[n]).median.toFixed(0)}`)
      .join(', ')}`,
  );

  const label = {
    plain: 'plain handler (JSON+zod, no verification)',
    mailroom: 'mailroom destination (sig+JSON+zod)',
    vendor: 'vendor verifySignatureAppRouter(plain)',
    floor: 'floor: hand-written verifying handler (node:crypto+JSON+zod)',
  };
  const rows = Object.keys(handlers).map((name) => {
    const row = {
      section: '3. Next App Router',
      case: 'in-process, 1 KiB JSON',
      contender: label[name],
      unit: 'calls/s',
      higherIsBetter: true,
      value: summarise(samples[name]),
      ratios: [],
      targets: [],
    };
    if (name !== 'plain') row.ratios.push({ vs: 'plain', ...pairedRatio(samples[name], samples.plain) });
    if (name === 'mailroom') {
      row.ratios.push({ vs: 'vendor', ...pairedRatio(samples.mailroom, samples.vendor) });
      row.ratios.push({ vs: 'floor', ...pairedRatio(samples.mailroom, samples.floor) });
      row.targets.push(
        { text: '>= 0.95x floor', met: row.ratios[2].median >= 0.95 },
        { text: '>= 3x vendor', met: row.ratios[1].median >= 3 },
      );
    }
    return row;
  });
  const notes = [
    'Next.js: the exported route handlers called in-process with a new Web Request each time (as Next calls them), one at a time; calls per second include building the Request. The vendor wrapper adds verification to the plain handler; Mailroom also checks the signed URL against publicUrl.',
  ];
  return { id: 'next', rows, checks, notes };
});
