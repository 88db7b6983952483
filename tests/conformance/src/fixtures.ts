import { defineDestination, type ReceiverOptions } from '@mailroom/core';
import { z } from 'zod';

// Fixed data every case and every target share, so a failure reads the same on each adapter.

export const CURRENT_KEY = 'sig_conformance_current_7cQ2vX9pLm4R';
export const NEXT_KEY = 'sig_conformance_next_3hT8wK1zNb6Y';
/** A key neither endpoint knows: a forger's. */
export const UNKNOWN_KEY = 'sig_conformance_forged_0000000000';

/** The suite's clock (2030-01-15T12:00:00Z). Injected on both sides so expiry cases never depend on the wall clock. */
export const FIXED_NOW = Date.UTC(2030, 0, 15, 12, 0, 0);
export const clock = (): number => FIXED_NOW;

/** Small on purpose: the limit cases then need only a kilobyte, not a megabyte, per request. */
export const MAX_BODY_BYTES = 1024;
/** Wide enough that "inside the tolerance" and "outside it" are 20 s and 60 s off, far from the edge. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** The public URL of the app behind a proxy, for the `publicUrl` cases. */
export const PUBLIC_URL = 'https://hooks.example.com';

export const PATHS = {
  destination: '/api/order-placed',
  callback: '/api/mailroom/callback',
  failureCallback: '/api/mailroom/failure-callback',
} as const;

export const orderSchema = z.object({ orderId: z.string(), total: z.number() });
export type Order = z.infer<typeof orderSchema>;

/**
 * One destination has to exercise every kind of body, so besides an order it accepts any text (what a
 * non-JSON body parses to) and nothing at all (an empty JSON body). A JSON object that is not an
 * order still fails, which is what the schema cases need.
 */
export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: PATHS.destination,
  schema: z.union([orderSchema, z.string(), z.undefined()]),
});

export const ORDER: Order = { orderId: 'ord_1001', total: 42.5 };

/** Every receiver in the suite starts from these; profiles change a few of them. */
export const BASE_OPTIONS: ReceiverOptions = {
  currentSigningKey: CURRENT_KEY,
  nextSigningKey: NEXT_KEY,
  maxBodyBytes: MAX_BODY_BYTES,
  clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
  now: clock,
  // Never read MAILROOM_* from the developer's shell or CI: the cases must see only what they set.
  env: {},
};

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function base64(data: string | Uint8Array): string {
  return Buffer.from(typeof data === 'string' ? utf8(data) : data).toString('base64');
}

/** A JSON order whose serialisation is exactly `length` bytes (padded in a field the schema drops). */
export function orderOfLength(length: number): Uint8Array {
  const empty = JSON.stringify({ ...ORDER, note: '' });
  const padding = length - utf8(empty).byteLength;
  if (padding < 0) throw new Error(`an order needs at least ${utf8(empty).byteLength} bytes`);
  return utf8(JSON.stringify({ ...ORDER, note: 'x'.repeat(padding) }));
}

/** Bytes that are not UTF-8 at all (lone continuation bytes, 0xFF, NUL), as a binary upload would be. */
export const BINARY_BODY = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x7f, 0x00, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]);

export const SOURCE_MESSAGE_ID = 'msg_26hZCxZCuWyyTWPmSVBrNB882AMRP1KmuGLz6iVEGGjs5zPAYyr2NUh';
export const CALLBACK_RESPONSE_TEXT = '{"received":true}';
export const FAILURE_RESPONSE_TEXT = 'upstream exploded';

/**
 * A callback body as the service posts it (see service-facts "Callback and failure-callback body"):
 * both bodies base64, `sourceHeader` mixing string and string[] values, `createdAt` as a numeric string.
 */
export function callbackPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    status: 200,
    header: { 'Content-Type': ['application/json'] },
    body: base64(CALLBACK_RESPONSE_TEXT),
    retried: 1,
    maxRetries: 3,
    sourceMessageId: SOURCE_MESSAGE_ID,
    topicName: '',
    endpointName: '',
    url: `https://app.example.com${PATHS.destination}`,
    method: 'POST',
    sourceHeader: { 'Content-Type': ['application/json'], 'X-Tenant': 'acme' },
    sourceBody: base64(JSON.stringify(ORDER)),
    notBefore: 0,
    createdAt: String(FIXED_NOW - 60_000),
    scheduleId: '',
    callerIP: '203.0.113.7',
    ...overrides,
  };
}

/** A failure callback: the last attempt's error answer, the DLQ id and, for a workflow run, its fields. */
export function failureCallbackPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return callbackPayload({
    status: 500,
    header: { 'Content-Type': ['text/plain; charset=utf-8'] },
    body: base64(FAILURE_RESPONSE_TEXT),
    retried: 3,
    maxRetries: 3,
    dlqId: '1893499200000-0',
    workflowRunId: 'wfr_conformance_1',
    workflowCreatedAt: String(FIXED_NOW - 120_000),
    ...overrides,
  });
}
