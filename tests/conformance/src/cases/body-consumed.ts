import { describe, expect, it } from 'vitest';
import { callbackPayload, failureCallbackPayload, ORDER } from '../fixtures';
import type { ConformanceTarget, TargetResponse } from '../target';
import { expectAccepted, expectNoHandlerCalled } from './support/expectations';
import type { Delivery, Harness } from './support/harness';

/**
 * The reduced suite for an app whose global JSON parser consumed the body before Mailroom saw it.
 * The exact bytes are gone, so nothing can be verified: every JSON request must fail loudly (500 with
 * a message saying how to fix the app), never reach a handler and never answer 200, whatever the
 * signature. Bodies the parser skipped must still work.
 */
export function bodyConsumedCases(h: Harness, target: ConformanceTarget): void {
  describe('JSON body consumed by a global parser', () => {
    const jsonCases: Array<[string, Delivery]> = [
      ['a JSON delivery signed with the current key', { body: ORDER }],
      ['a JSON delivery signed with the next key', { body: ORDER, signWith: 'next' }],
      ['a JSON delivery with a body changed after signing', { body: ORDER, tampered: true }],
      ['a JSON body that fails the schema', { body: { orderId: 42 } }],
      ['a callback', { to: 'callback', body: callbackPayload() }],
      ['a failure callback', { to: 'failureCallback', body: failureCallbackPayload() }],
    ];
    for (const [name, delivery] of jsonCases) {
      it(`answers 500 with a fix-it message to ${name}`, async () => {
        expectFixIt(await h.deliver(delivery));
        expectNoHandlerCalled(h);
      });
    }

    if (target.quirks?.parsesEveryBody) {
      it('answers 500 with a fix-it message to a text body too (the parser read it as well)', async () => {
        expectFixIt(await h.deliver({ body: 'plain text', contentType: 'text/plain' }));
        expectNoHandlerCalled(h);
      });
      return;
    }
    it('still verifies and delivers a text body the JSON parser skipped', async () => {
      expectAccepted(await h.deliver({ body: 'plain text', contentType: 'text/plain' }));
      expect(h.received().body).toBe('plain text');
    });
  });
}

function expectFixIt(response: TargetResponse): void {
  expect(response.status, `answer body: ${response.body}`).toBe(500);
  // The message must tell the developer what to change, not just that something failed.
  expect(response.body).toMatch(/exceptDeliveries|captureRawBody|verify|onParse/);
}
