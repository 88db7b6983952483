import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_BODY_BYTES, PATHS, utf8 } from '../fixtures';
import type { ConformanceTarget } from '../target';
import { useBadInputApp } from './bad-input-app';
import { rawExchange, requestHead, streamUntilAnswered, type RawResponse } from './raw-http';
import { meterServerSockets } from './server-meter';

/**
 * How much more than the limit a server may read before it stops: one socket read (Node reads up
 * to 64 KiB at a time and parses all of it; measured: exactly 64 KiB on every target) and as much
 * again for a read already under way. Anything near the megabytes the client pushes means the body
 * was read whole.
 */
const READ_SLACK_BYTES = 128 * 1024;
/** What the oversized cases try to push: sixty-four times the slack, so "read whole" cannot pass. */
const OVERSIZED_BYTES = 8 * 1024 * 1024;

/**
 * Malformed and hostile traffic against an adapter's app over a real socket: oversized bodies
 * (streamed, cut at the limit), slow senders, bodies cut short, invalid UTF-8 in JSON, header
 * floods. After every case the same app must still answer a valid delivery with 200.
 *
 * @example
 * import { runBadInputSuite } from '../../src/bad-input/run-bad-input-suite';
 * import { express5Target } from '../../src/targets/express';
 * runBadInputSuite(express5Target);
 */
export function runBadInputSuite(target: ConformanceTarget): void {
  describe(`bad input over real sockets: ${target.name}`, () => {
    const app = useBadInputApp(target);
    const meter = meterServerSockets();
    afterAll(() => meter.stop());
    afterEach(async () => {
      await app.expectStillServing();
    });

    /** Request head for the destination, with Host and whatever else the case needs. */
    const head = (query: string, headers: ReadonlyArray<readonly [string, string]>) =>
      requestHead('POST', PATHS.destination + query, [['Host', app.host], ...headers]);

    describe('oversized bodies', () => {
      // A framework's own JSON parser (Nest with rawBody: true) runs before Mailroom and reads the
      // body by its own rules; octet-stream bodies reach Mailroom's streaming reader everywhere.
      const contentTypes = target.quirks?.frameworkParsesJson
        ? ['application/octet-stream']
        : ['application/octet-stream', 'application/json'];

      it.each(contentTypes)(
        'streams a chunked %s body and cuts it at the limit: 413, about the limit read, no handler',
        async (contentType) => {
          const mark = meter.mark();
          const response = await streamUntilAnswered(
            app.origin,
            head(mark.query, [
              ['Content-Type', contentType],
              ['Transfer-Encoding', 'chunked'],
              ['Service-Signature', 'x.y.z'],
            ]),
            { chunkSize: 16 * 1024, maxBytes: OVERSIZED_BYTES },
          );
          const server = await mark.closed();
          expectRefused(response, 413);
          expect(server.bytesRead, `the server read ${server.bytesRead} bytes of a ${OVERSIZED_BYTES}-byte upload`).toBeLessThan(
            MAX_BODY_BYTES + READ_SLACK_BYTES,
          );
          expect(app.reportedCodes()).toContain('BODY_TOO_LARGE');
          app.expectNoHandlerCalled();
        },
      );

      if (target.quirks?.frameworkParsesJson) {
        it("leaves an oversized JSON body to the framework's own parser: 413, no handler (it reads the upload to its end; see docs/security.md)", async () => {
          const response = await streamUntilAnswered(
            app.origin,
            head('', [
              ['Content-Type', 'application/json'],
              ['Transfer-Encoding', 'chunked'],
              ['Service-Signature', 'x.y.z'],
            ]),
            { chunkSize: 16 * 1024, maxBytes: 2 * 1024 * 1024 },
          );
          expectRefused(response, 413);
          app.expectNoHandlerCalled();
        });
      }

      it.each(contentTypes)('refuses a %s body whose Content-Length is far over the limit before reading it', async (contentType) => {
        const mark = meter.mark();
        const response = await rawExchange(app.origin, [
          {
            write: head(mark.query, [
              ['Content-Type', contentType],
              ['Content-Length', String(10 * 1024 ** 3)],
              ['Service-Signature', 'x.y.z'],
            ]),
          },
          { write: 'x'.repeat(4096) },
        ]);
        const server = await mark.closed();
        expectRefused(response, 413);
        expect(server.bytesRead).toBeLessThan(MAX_BODY_BYTES + READ_SLACK_BYTES);
        app.expectNoHandlerCalled();
      });
    });

    describe('slow senders', () => {
      it('accepts a delivery whose head arrives in pieces and whose body arrives a byte every 3 ms', async () => {
        const { headers, body } = await app.signed();
        const text = head('', [...Object.entries(headers), ['Content-Length', String(body.byteLength)]]);
        const pieces = text.match(/[\s\S]{1,64}/g) ?? [];
        const response = await rawExchange(
          app.origin,
          [...pieces.flatMap((piece) => [{ write: piece }, { wait: 5 }]), { drip: body, everyMs: 3 }],
          { timeoutMs: 10_000 },
        );
        expect(response.status, response.body).toBe(200);
        expect(app.handlers.destination).toHaveBeenCalledTimes(1);
        expect(Array.from(app.handlers.destination.mock.calls[0]?.[0].rawBody ?? [])).toEqual(Array.from(body));
      });
    });

    describe('bodies cut short', () => {
      const truncated = async (ending: 'destroy' | 'half-close', framing: 'content-length' | 'chunked'): Promise<RawResponse> => {
        const { headers, body } = await app.signed({ orderId: 'ord_1', total: 1, note: 'n'.repeat(400) });
        const mark = meter.mark();
        const framingHeader: [string, string] =
          framing === 'chunked' ? ['Transfer-Encoding', 'chunked'] : ['Content-Length', String(body.byteLength)];
        const sent = body.subarray(0, 100);
        const bodyPart =
          framing === 'chunked' ? Buffer.concat([Buffer.from(`${sent.byteLength.toString(16)}\r\n`), sent, Buffer.from('\r\n')]) : sent;
        const response = await rawExchange(
          app.origin,
          [
            { write: head(mark.query, [...Object.entries(headers), framingHeader]) },
            { write: bodyPart },
            { wait: 20 },
            ending === 'destroy' ? { destroy: true } : { end: true },
          ],
          { timeoutMs: 3_000 },
        );
        await mark.closed();
        return response;
      };

      it.each([
        ['destroy', 'content-length'],
        ['half-close', 'content-length'],
        ['destroy', 'chunked'],
        ['half-close', 'chunked'],
      ] as const)('client %ss after a %s body is cut short: no handler, no crash, 400 if it still listens', async (ending, framing) => {
        const response = await truncated(ending, framing);
        // A half-closed client still reads: it gets Node's 400. A destroyed one gets nothing.
        expect(response.status).toBe(ending === 'half-close' ? 400 : undefined);
        app.expectNoHandlerCalled();
        // Where Mailroom reads the stream itself, it saw the cut and said so; a framework's own JSON
        // parser (Nest with rawBody: true) refuses it before Mailroom is involved.
        if (!target.quirks?.frameworkParsesJson) await vi.waitFor(() => expect(app.reportedCodes()).toEqual(['BODY_READ']));
      });
    });

    describe('invalid UTF-8 in a JSON body', () => {
      const samples: Array<[string, number[]]> = [
        ['a lone continuation byte', [0x80]],
        ['0xFF', [0xff, 0xfe]],
        ['an overlong "/"', [0xc0, 0xaf]],
        ['a UTF-8-encoded surrogate', [0xed, 0xa0, 0x80]],
        ['a truncated 3-byte sequence', [0xe2, 0x82]],
      ];
      it.each(samples)('answers 489 non-retryable to a signed JSON body with %s, without calling the handler', async (_name, bad) => {
        const bytes = new Uint8Array([...utf8('{"orderId":"ord_'), ...bad, ...utf8('","total":1}')]);
        const { headers, body } = await app.signed(bytes, { contentType: 'application/json' });
        const response = await rawExchange(app.origin, [
          { write: head('', [...Object.entries(headers), ['Content-Length', String(body.byteLength)]]) },
          { write: body },
        ]);
        expect(response.status, response.body).toBe(489);
        expect(response.headers['service-nonretryable-error']).toBe('true');
        app.expectNoHandlerCalled();
      });
    });

    describe('header floods', () => {
      it('answers 431 to thousands of headers (far over 16 KiB) and calls no handler', async () => {
        const flood = Array.from({ length: 5000 }, (_, i) => [`X-Flood-${i}`, 'v'] as const);
        const response = await rawExchange(app.origin, [{ write: head('', [...flood, ['Content-Length', '0']]) }]);
        expectRefused(response, 431);
        app.expectNoHandlerCalled();
      });

      it('answers 431 to one 64 KiB header', async () => {
        const response = await rawExchange(app.origin, [
          {
            write: head('', [
              ['X-Huge', 'h'.repeat(64 * 1024)],
              ['Content-Length', '0'],
            ]),
          },
        ]);
        expectRefused(response, 431);
        app.expectNoHandlerCalled();
      });

      it('refuses a valid delivery whose signature is buried after 2,500 small headers (Node keeps the first 2,000)', async () => {
        const { headers, body } = await app.signed();
        // 2,500 lines of "x: 1" stay under Node's 16 KiB header limit, but over its 2,000-header count.
        const flood = Array.from({ length: 2500 }, () => ['x', '1'] as const);
        const response = await rawExchange(app.origin, [
          { write: head('', [['Content-Length', String(body.byteLength)], ...flood, ...Object.entries(headers)]) },
          { write: body },
        ]);
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        app.expectNoHandlerCalled();
      });

      it('answers 401 to a 12 KB signature header (over the 8 KiB token limit) without verifying it', async () => {
        const { headers, body } = await app.signed();
        const response = await rawExchange(app.origin, [
          {
            write: head('', [
              ...Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'service-signature'),
              ['Service-Signature', `${'A'.repeat(12_000)}.e30.x`],
              ['Content-Length', String(body.byteLength)],
            ]),
          },
          { write: body },
        ]);
        expect(response.status).toBe(401);
        app.expectNoHandlerCalled();
      });
    });
  });
}

/**
 * The refusal arrived. A server that refuses an upload closes the connection while the client is
 * still sending, so the kernel may reset it afterwards; the answer is written first and is read
 * before the reset is seen.
 */
function expectRefused(response: RawResponse, status: number): void {
  expect(response.status, `no answer (${response.ended}, ${response.error ?? 'no socket error'})`).toBe(status);
}
