import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, ORDER, orderOfLength } from '../fixtures';
import { expectAccepted, expectBytes, expectNoHandlerCalled } from './support/expectations';
import type { Harness } from './support/harness';

/** Size and method: refused before the signature is even looked at. */
export function limitCases(h: Harness): void {
  describe('limits', () => {
    it(`accepts a body of exactly maxBodyBytes (${MAX_BODY_BYTES})`, async () => {
      const bytes = orderOfLength(MAX_BODY_BYTES);
      expectAccepted(await h.deliver({ body: bytes, contentType: 'application/json' }));
      expectBytes(h.received().rawBody, bytes);
    });

    it('answers 413 to a body one byte over maxBodyBytes and calls no handler', async () => {
      const response = await h.deliver({ body: orderOfLength(MAX_BODY_BYTES + 1), contentType: 'application/json' });
      expect(response.status).toBe(413);
      expectNoHandlerCalled(h);
    });

    it('answers 413 to an oversized callback too', async () => {
      const response = await h.deliver({ to: 'callback', body: orderOfLength(MAX_BODY_BYTES + 1), contentType: 'application/json' });
      expect(response.status).toBe(413);
      expectNoHandlerCalled(h);
    });

    if (h.target.quirks?.frameworkRoutesMethods) {
      it('refuses a wrong method (the framework routes methods: 404 or 405)', async () => {
        const response = await h.deliver({ body: ORDER, method: 'PUT' });
        expect([404, 405]).toContain(response.status);
        expectNoHandlerCalled(h);
      });
    } else {
      it('answers 405 with Allow: POST to a wrong method, even when signed', async () => {
        const response = await h.deliver({ body: ORDER, method: 'PUT' });
        expect(response.status).toBe(405);
        expect(response.headers.allow).toContain('POST');
        expectNoHandlerCalled(h);
      });
    }
  });
}
