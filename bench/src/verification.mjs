// Measurement 1: verification cost per message, in-process, ours against the vendor's Receiver and
// jose used directly. Inputs are what each API takes from an app: ours the raw bytes (adapters hold
// a Buffer), the vendor's Receiver the body as a string (its `body: string` parameter).
import { createVerifier } from '@mailroom/core';
import { Receiver } from '@upstash/qstash';
import { jwtVerify } from 'jose';
import { check, log, report } from './lib/child.mjs';
import { CURRENT_KEY, ISSUER, NEXT_KEY, PUBLIC_URL, bodyClaimOf, orderBody, tokenSet } from './lib/fixtures.mjs';
import { createFloorVerifier } from './lib/floor-verifier.mjs';
import { alternate, microsPerOp, microsPerSyncOp } from './lib/rounds.mjs';
import { speedup, summarise } from './lib/stats.mjs';

const URL = `${PUBLIC_URL}/api/orders`;
const SIZES = [
  { label: '1 KiB', bytes: 1024, target: { maxFloorTime: 1.3, minSpeedup: 8 } },
  { label: '100 KiB', bytes: 100 * 1024, target: { maxFloorTime: 1.3, minSpeedup: 2.5 } },
];
// The three cases of the issue, plus current and next-key tokens in turn: Mailroom tries the key
// that matched last first (one HMAC per token during a rotation), so `next-key` is the steady state
// of a rotation and `alternating` the worst case of that choice (no target, for the record).
const KINDS = ['valid', 'next-key', 'tampered', 'alternating'];

function contenders() {
  const ours = createVerifier({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, issuer: ISSUER });
  if (ours.implementation !== 'node') throw new Error(`expected the node:crypto verifier, got ${ours.implementation}`);
  const oursJose = createVerifier({
    currentSigningKey: CURRENT_KEY,
    nextSigningKey: NEXT_KEY,
    issuer: ISSUER,
    implementation: 'webcrypto',
  });
  const vendor = new Receiver({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY });
  const floor = createFloorVerifier({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, issuer: ISSUER });
  const encoder = new TextEncoder();
  const joseKeys = [encoder.encode(CURRENT_KEY), encoder.encode(NEXT_KEY)];

  // jose used directly, as a careful hand-written receiver would: jwtVerify per key (HS256 pinned),
  // then the body hash over Web Crypto, compared without padding.
  async function joseDirect({ signature, rawBody, url }) {
    let payload;
    for (const key of joseKeys) {
      try {
        ({ payload } = await jwtVerify(signature, key, { algorithms: ['HS256'], issuer: ISSUER, subject: url, clockTolerance: 5 }));
        break;
      } catch (error) {
        if (key === joseKeys[joseKeys.length - 1]) throw error;
      }
    }
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', rawBody));
    if (payload.body.replace(/=+$/, '') !== Buffer.from(digest).toString('base64url')) throw new Error('body hash mismatch');
    return payload;
  }

  return [
    { name: 'mailroom verify()', primary: true, verify: (t) => ours.verify({ signature: t.signature, rawBody: t.bytes, url: t.url }) },
    { name: 'mailroom verifySync()', sync: true, verify: (t) => ours.verifySync({ signature: t.signature, rawBody: t.bytes, url: t.url }) },
    { name: 'mailroom jose path (edge)', verify: (t) => oursJose.verify({ signature: t.signature, rawBody: t.bytes, url: t.url }) },
    { name: 'jose directly', verify: (t) => joseDirect({ signature: t.signature, rawBody: t.bytes, url: t.url }) },
    { name: 'vendor Receiver.verify', vendor: true, verify: (t) => vendor.verify({ signature: t.signature, body: t.text, url: t.url }) },
    {
      name: 'floor: hand-written node:crypto verify',
      floor: true,
      sync: true,
      verify: (t) => floor({ signature: t.signature, bytes: t.bytes, url: t.url }),
    },
  ];
}

/** The three inputs of one size, each with the form every contender takes. */
function inputsFor(set) {
  const input = (signature, bytes) => ({ signature, bytes, text: bytes.toString('utf8'), url: set.url });
  return {
    valid: input(set.valid, set.body),
    'next-key': input(set.next, set.body),
    tampered: input(set.valid, set.tamperedBody),
    unpadded: input(set.unpadded, set.body),
  };
}

function swallow(verify, input) {
  try {
    verify(input);
  } catch {
    // A rejection is the expected outcome for tampered tokens; its cost is what is measured.
  }
}

async function outcome(run) {
  try {
    await run();
    return 'accepted';
  } catch {
    return 'rejected';
  }
}

/** Before any timing: every contender accepts valid, next-key and unpadded tokens and rejects tampered ones. */
async function checkCorrectness(list, inputs, label) {
  for (const contender of list) {
    for (const [kind, expected] of [
      ['valid', 'accepted'],
      ['next-key', 'accepted'],
      ['unpadded', 'accepted'],
      ['tampered', 'rejected'],
    ]) {
      const got = await outcome(() => contender.verify(inputs[kind]));
      check(got === expected, `${contender.name} ${got} a ${kind} token at ${label}, expected ${expected}`);
    }
  }
  // Same tokens for everyone: the padded body claim the real service writes.
  check(bodyClaimOf(inputs.valid.signature).endsWith('='), 'service-style tokens must carry the padded body claim');
}

await report(async ({ smoke }) => {
  const rounds = smoke ? 1 : 15;
  const sliceMs = smoke ? 25 : 50;
  const list = contenders();
  const rows = [];
  const checks = [];
  for (const size of SIZES) {
    const inputs = inputsFor(await tokenSet(orderBody(size.bytes), URL));
    await checkCorrectness(list, inputs, size.label);
    checks.push(`${size.label}: ${list.length} verifiers accept valid, next-key and unpadded tokens and reject a tampered body`);
    for (const kind of KINDS) {
      let turn = 0;
      const pick = kind === 'alternating' ? () => (turn++ & 1 ? inputs['next-key'] : inputs.valid) : () => inputs[kind];
      const samples = await alternate(
        // Round 0 is the discarded warm-up: longer, so every path is compiled before it counts (a
        // smoke run's only round checks the paths, and counts nothing).
        list.map((c) => ({
          name: c.name,
          measure: (round) => {
            const ms = round === 0 && !smoke ? sliceMs * 4 : sliceMs;
            return c.sync
              ? microsPerSyncOp(() => swallow(c.verify, pick()), ms)
              : microsPerOp(() => c.verify(pick()), ms, { expect: kind === 'tampered' ? 'reject' : 'resolve' });
          },
        })),
        { rounds, warmup: true },
      );
      log(
        `verification ${size.label} ${kind}: ${list.map((c) => `${c.name} ${summarise(samples[c.name]).median.toFixed(1)} µs`).join(', ')}`,
      );
      const vendorName = list.find((c) => c.vendor).name;
      const floorName = list.find((c) => c.floor).name;
      for (const c of list) {
        const value = summarise(samples[c.name]);
        const row = {
          section: '1. Verification',
          case: `${size.label} ${kind}`,
          contender: c.name,
          unit: 'µs/msg',
          higherIsBetter: false,
          value,
          ratios: [],
          targets: [],
        };
        if (!c.vendor) row.ratios.push({ vs: 'vendor', ...speedup(samples[c.name], samples[vendorName], false) });
        // Time as a multiple of the floor's: 1.00x is as fast as hand-written node:crypto can be.
        if (!c.vendor && !c.floor) row.ratios.push({ vs: 'floor time', ...speedup(samples[floorName], samples[c.name], false) });
        if (c.primary && kind !== 'alternating') {
          const floorTime = row.ratios.find((r) => r.vs === 'floor time').median;
          row.targets.push({ text: `<= ${size.target.maxFloorTime}x floor time`, met: floorTime <= size.target.maxFloorTime });
          row.targets.push({ text: `>= ${size.target.minSpeedup}x vendor`, met: row.ratios[0].median >= size.target.minSpeedup });
        }
        rows.push(row);
      }
    }
  }
  const notes = [
    'Verification: in-process, one call at a time, µs per call (lower is better); ratios are how many times faster than the vendor Receiver. Mailroom gets the raw bytes (what its adapters hold), the vendor Receiver the body string (its API). Every contender checks the subject URL.',
    'Verification `next-key` is the steady state of a key rotation: Mailroom tries the key that matched last first, so only the first next-key token pays a second HMAC; `alternating` (current and next-key tokens in turn) is the worst case of that choice.',
  ];
  return { id: 'verification', rows, checks, notes };
});
