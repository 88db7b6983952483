import { afterEach, describe, expect, it } from 'vitest';
import { BodyTooLargeError } from '../../src/errors';
import { DEFAULT_MAX_BODY_BYTES, readInbound, writeOutbound } from '../../src/adapter';
import { send, sendEndless } from './support/raw-client';
import { createRecorder, readAndAnswer, readerHandler, startServer, type TestServer } from './support/reader-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const LIMIT = 1000;

/** Sends `size` bytes either with a Content-Length or chunked (two chunks, no Content-Length). */
function sendBody(port: number, size: number, framing: 'content-length' | 'chunked') {
  const body = Buffer.alloc(size, 0x61);
  if (framing === 'content-length') return send(port, { headers: { 'content-length': String(size) }, chunks: [body] });
  const half = Math.floor(size / 2);
  return send(port, { chunks: [body.subarray(0, half), body.subarray(half)] });
}

describe.each(['content-length', 'chunked'] as const)('the size limit with %s framing', (framing) => {
  it('accepts a body of exactly maxBodyBytes', async () => {
    const recorder = createRecorder();
    server = await startServer(readerHandler(recorder, { maxBodyBytes: LIMIT }));
    const response = await sendBody(server.port, LIMIT, framing);
    expect(response.status).toBe(200);
    expect((await recorder.next()).inbound!.rawBody.byteLength).toBe(LIMIT);
  });

  it('rejects one byte more with BodyTooLargeError, and the client gets 413', async () => {
    const recorder = createRecorder();
    server = await startServer(readerHandler(recorder, { maxBodyBytes: LIMIT }));
    const response = await sendBody(server.port, LIMIT + 1, framing);
    expect(response.status).toBe(413);
    expect(response.body).toContain(`limit of ${LIMIT} bytes`);
    const { error } = await recorder.next();
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect(error).toMatchObject({ limit: LIMIT, code: 'BODY_TOO_LARGE' });
  });
});

describe('the default limit of 1 MiB', () => {
  it('is 1_048_576 bytes: exactly that is accepted, one byte more is refused', async () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1_048_576);
    const recorder = createRecorder();
    server = await startServer(readerHandler(recorder));
    const atLimit = await fetch(server.url, { method: 'POST', body: new Uint8Array(1_048_576) });
    expect(atLimit.status).toBe(200);
    const overByContentLength = await fetch(server.url, { method: 'POST', body: new Uint8Array(1_048_577) });
    expect(overByContentLength.status).toBe(413);
    const overChunked = await sendBody(server.port, 1_048_577, 'chunked');
    expect(overChunked.status).toBe(413);
    expect((await recorder.next()).inbound!.rawBody.byteLength).toBe(1_048_576);
    expect((await recorder.next()).error).toBeInstanceOf(BodyTooLargeError);
    expect((await recorder.next()).error).toBeInstanceOf(BodyTooLargeError);
  });
});

describe('refusing early', () => {
  it('refuses a Content-Length above the limit before reading a byte', async () => {
    const recorder = createRecorder();
    server = await startServer(readerHandler(recorder, { maxBodyBytes: LIMIT }));
    // The client announces 10 MB but sends none of it: only a refusal from the headers can answer.
    const response = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      void import('node:http').then(({ request }) => {
        const req = request(
          { host: '127.0.0.1', port: server!.port, method: 'POST', agent: false, headers: { 'content-length': '10000000' } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
            req.destroy();
          },
        );
        req.on('error', reject);
        req.flushHeaders();
      });
    });
    expect(response).toEqual({ status: 413, connection: 'close' });
    const { error, didRead } = await recorder.next();
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect(didRead).toBe(false);
  });

  it('cuts an endless chunked body while streaming: reads at most about limit + one chunk, and the client gets 413', async () => {
    const recorder = createRecorder();
    const limit = 64 * 1024;
    let counted = 0;
    // Counts every chunk the request stream hands out while readInbound reads it.
    server = await startServer(
      readerHandler(recorder, { maxBodyBytes: limit }, (req) => req.on('data', (chunk: Buffer) => (counted += chunk.byteLength))),
    );
    const response = await sendEndless(server.port, new Uint8Array(16 * 1024), 500 * 1024 * 1024);
    expect(response.status).toBe(413);
    expect(response.answeredWhileSending).toBe(true);
    // The rest of the body is still on the wire: the connection must not be reused.
    expect(response.headers.connection).toBe('close');
    expect((await recorder.next()).error).toBeInstanceOf(BodyTooLargeError);
    expect(counted).toBeGreaterThan(limit);
    expect(counted).toBeLessThanOrEqual(limit + 64 * 1024);
    expect(response.written).toBeGreaterThan(counted);
  });

  it('stops pulling bytes after the refusal, and the socket still carries a 413 sent later', async () => {
    const limit = 64 * 1024;
    let counted = 0;
    let countedAtRefusal = -1;
    let refusal: unknown;
    server = await startServer((req, res) => {
      const pending = readInbound(req, { maxBodyBytes: limit });
      req.on('data', (chunk: Buffer) => (counted += chunk.byteLength));
      pending.catch(async (error: unknown) => {
        refusal = error;
        countedAtRefusal = counted;
        // An adapter may take a while to answer; the body must not keep flowing meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 150));
        writeOutbound(res, { status: 413, headers: {}, body: 'too large' });
      });
    });
    const response = await sendEndless(server.port, new Uint8Array(16 * 1024), 500 * 1024 * 1024);
    expect(response.status).toBe(413);
    expect(response.body).toBe('too large');
    expect(refusal).toBeInstanceOf(BodyTooLargeError);
    expect(counted).toBe(countedAtRefusal);
    expect(counted).toBeLessThanOrEqual(limit + 64 * 1024);
  });

  it('lets the next request through after a 413 (a keep-alive client opens a fresh connection)', async () => {
    const recorder = createRecorder();
    server = await startServer(readerHandler(recorder, { maxBodyBytes: LIMIT }));
    const refused = await fetch(server.url, { method: 'POST', body: new Uint8Array(200_000) });
    expect(refused.status).toBe(413);
    await refused.text();
    const accepted = await fetch(server.url, { method: 'POST', body: 'small' });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ length: 5 });
  });

  it('applies the limit to bytes a parser already captured on req.rawBody or req.body', async () => {
    const recorder = createRecorder();
    server = await startServer((req, res) => {
      // Stand-ins for parsers whose own limit is higher than the receiver's.
      const target = req as typeof req & { rawBody?: unknown; body?: unknown };
      if (req.url === '/raw-body') target.rawBody = Buffer.alloc(LIMIT + 1);
      if (req.url === '/buffer-body') {
        target.body = Buffer.alloc(LIMIT + 1);
        req.resume();
        req.once('end', () => void readAndAnswer(recorder, req, res, { maxBodyBytes: LIMIT }));
        return;
      }
      void readAndAnswer(recorder, req, res, { maxBodyBytes: LIMIT });
    });
    expect((await fetch(`${server.url}/raw-body`, { method: 'POST', body: 'x' })).status).toBe(413);
    expect((await fetch(`${server.url}/buffer-body`, { method: 'POST', body: 'x' })).status).toBe(413);
    expect((await recorder.next()).error).toBeInstanceOf(BodyTooLargeError);
    expect((await recorder.next()).error).toBeInstanceOf(BodyTooLargeError);
  });
});
