import { expect } from 'vitest';
import type { TargetResponse } from '../../target';
import type { Harness } from './harness';

/** Nothing reached any handler: the request was stopped before user code. */
export function expectNoHandlerCalled(harness: Harness): void {
  expect(harness.destination).not.toHaveBeenCalled();
  expect(harness.callback).not.toHaveBeenCalled();
  expect(harness.failureCallback).not.toHaveBeenCalled();
}

/** 2xx, with the response body shown when it is not, because that body usually says why. */
export function expectAccepted(response: TargetResponse, status = 200): void {
  expect(response.status, `answer body: ${response.body}`).toBe(status);
}

/**
 * 401, no handler, and `onError` told why. The HTTP body must not say why: which check failed is
 * for the app's logs, not for whoever is probing the endpoint.
 */
export function expectSignatureRefused(response: TargetResponse, harness: Harness, reason: string): void {
  expect(response.status, `answer body: ${response.body}`).toBe(401);
  expectNoHandlerCalled(harness);
  expect(harness.signatureReason()).toBe(reason);
  expect(response.body).not.toMatch(/expired|not-yet-valid|algorithm|body-hash|malformed|subject|issuer|sig_/i);
}

/** 489 plus `<Prefix>-NonRetryable-Error: true`: the service sends the message straight to the DLQ. */
export function expectNonRetryable(response: TargetResponse, harness: Harness): void {
  expect(response.status, `answer body: ${response.body}`).toBe(489);
  expect(response.headers[`${harness.headerPrefix.toLowerCase()}-nonretryable-error`]).toBe('true');
}

/** Exact bytes, compared as arrays so a mismatch shows where. */
export function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual).toBeInstanceOf(Uint8Array);
  expect(Array.from(actual)).toEqual(Array.from(expected));
}
