import { describe, expect, it } from 'vitest';
import { BINARY_BODY, ORDER, utf8 } from '../fixtures';
import { expectAccepted, expectBytes, expectSignatureRefused } from './support/expectations';
import type { Harness } from './support/harness';

/** Every kind of body reaches the handler as the exact bytes sent, parsed only when it says it is JSON. */
export function bodyCases(h: Harness): void {
  describe('bodies', () => {
    it('parses a JSON body and keeps its exact bytes', async () => {
      const bytes = utf8('{"orderId":"ord_ü_1","total":7}');
      expectAccepted(await h.deliver({ body: bytes, contentType: 'application/json' }));
      const message = h.received();
      expect(message.body).toEqual({ orderId: 'ord_ü_1', total: 7 });
      expectBytes(message.rawBody, bytes);
      expect(message.text()).toBe('{"orderId":"ord_ü_1","total":7}');
      expect(message.contentType).toBe('application/json');
    });

    it('parses JSON declared with a charset parameter', async () => {
      expectAccepted(await h.deliver({ body: JSON.stringify(ORDER), contentType: 'application/json; charset=utf-8' }));
      expect(h.received().body).toEqual(ORDER);
    });

    it('keeps whitespace-heavy JSON byte for byte (the signature covers the bytes, not the data)', async () => {
      const bytes = utf8(`{\n  "orderId" : "ord_1",\r\n\t"total" : 1.50\n}\n`);
      expectAccepted(await h.deliver({ body: bytes, contentType: 'application/json' }));
      expect(h.received().body).toEqual({ orderId: 'ord_1', total: 1.5 });
      expectBytes(h.received().rawBody, bytes);
    });

    it('gives a text body as a string', async () => {
      const text = 'order ord_1001 paid: 42.50 € ✓';
      expectAccepted(await h.deliver({ body: text, contentType: 'text/plain; charset=utf-8' }));
      expect(h.received().body).toBe(text);
      expect(h.received().text()).toBe(text);
      expectBytes(h.received().rawBody, utf8(text));
    });

    it('keeps a text body that looks like JSON a string (only JSON content types are parsed)', async () => {
      const text = JSON.stringify(ORDER);
      expectAccepted(await h.deliver({ body: text, contentType: 'text/plain' }));
      expect(h.received().body).toBe(text);
    });

    it('delivers a binary, non-UTF-8 body as its exact bytes', async () => {
      expectAccepted(await h.deliver({ body: BINARY_BODY, contentType: 'application/octet-stream' }));
      expectBytes(h.received().rawBody, BINARY_BODY);
    });

    it('accepts an empty body without Content-Type', async () => {
      expectAccepted(await h.deliver({ body: new Uint8Array(0) }));
      const message = h.received();
      expect(message.rawBody.byteLength).toBe(0);
      expect(message.body).toBe('');
      expect(message.contentType).toBeUndefined();
    });

    it('accepts an empty body declared as JSON, as no data', async () => {
      expectAccepted(await h.deliver({ body: new Uint8Array(0), contentType: 'application/json' }));
      expect(h.received().rawBody.byteLength).toBe(0);
      expect(h.received().body).toBeUndefined();
    });

    if (h.target.quirks?.dropsBodyWithoutContentType) {
      it('refuses a body sent without Content-Type, which the framework never hands over (401, never accepted as empty)', async () => {
        expectSignatureRefused(await h.deliver({ body: utf8(JSON.stringify(ORDER)) }), h, 'body-hash');
      });
      return;
    }

    it('does not parse JSON bytes sent without Content-Type', async () => {
      const bytes = utf8(JSON.stringify(ORDER));
      expectAccepted(await h.deliver({ body: bytes }));
      const message = h.received();
      expect(message.contentType).toBeUndefined();
      expect(message.body).toBe(JSON.stringify(ORDER));
      expectBytes(message.rawBody, bytes);
    });
  });
}
