import { afterEach, describe, expect, it } from 'vitest';
import { BodyReadError, ValidationError } from '../../src/errors';
import { readInbound, type InboundRequest } from '../../src/adapter';
import { send } from './support/raw-client';
import { createRecorder, readerHandler, startServer, type Recorder, type TestServer } from './support/reader-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function reader(
  options?: Parameters<typeof readerHandler>[1],
  onReading?: Parameters<typeof readerHandler>[2],
): Promise<{ recorder: Recorder; server: TestServer }> {
  const recorder = createRecorder();
  server = await startServer(readerHandler(recorder, options, onReading));
  return { recorder, server };
}

const bytesOf = (value: Uint8Array): number[] => [...value];

describe('readInbound: the exact bytes from the unread stream', () => {
  it('returns a JSON body byte for byte, whitespace and escapes included', async () => {
    const { recorder, server } = await reader();
    const json = '{ "b":1,\n  "a" : "\\u00e9 é ✓" }';
    const response = await fetch(`${server.url}/hook?x=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
    expect(response.status).toBe(200);
    const { inbound } = await recorder.next();
    expect(Buffer.from(inbound!.rawBody).toString('utf8')).toBe(json);
    expect(inbound).toMatchObject({ method: 'POST', url: '/hook?x=1' });
    expect(nodeHeader(inbound!, 'content-type')).toBe('application/json');
  });

  it('returns a text body exactly', async () => {
    const { recorder, server } = await reader();
    await fetch(server.url, { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'line 1\r\nline 2\n' });
    const { inbound } = await recorder.next();
    expect(Buffer.from(inbound!.rawBody).toString('utf8')).toBe('line 1\r\nline 2\n');
  });

  it('returns binary bytes that are not UTF-8 unchanged', async () => {
    const { recorder, server } = await reader();
    const binary = Uint8Array.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0xef, 0xbb, 0xbf, 0x0d, 0x0a]);
    await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: binary });
    const { inbound } = await recorder.next();
    expect(inbound!.rawBody).toBeInstanceOf(Uint8Array);
    expect(bytesOf(inbound!.rawBody)).toEqual(bytesOf(binary));
  });

  it('returns empty bytes for a POST with an empty body and for a GET', async () => {
    const { recorder, server } = await reader();
    await fetch(server.url, { method: 'POST', body: '' });
    await fetch(`${server.url}/status`);
    const post = await recorder.next();
    const get = await recorder.next();
    expect(post.error).toBeUndefined();
    expect(post.inbound!.rawBody.byteLength).toBe(0);
    expect(get.error).toBeUndefined();
    expect(get.inbound).toMatchObject({ method: 'GET', url: '/status' });
    expect(get.inbound!.rawBody.byteLength).toBe(0);
  });

  it('reads a body sent without any Content-Type', async () => {
    const { recorder, server } = await reader();
    const response = await send(server.port, { headers: { 'content-length': '11' }, chunks: ['hello world'] });
    expect(response.status).toBe(200);
    const { inbound } = await recorder.next();
    expect(inbound!.headers).not.toHaveProperty('content-type');
    expect(Buffer.from(inbound!.rawBody).toString()).toBe('hello world');
  });

  it('joins a chunked body (no Content-Length) in order', async () => {
    const { recorder, server } = await reader();
    const chunks = ['{"part":', Buffer.from([0x31]), ',"more":"', 'x'.repeat(70_000), '"}'];
    const response = await send(server.port, { headers: { 'content-type': 'application/json' }, chunks });
    expect(response.status).toBe(200);
    const { inbound } = await recorder.next();
    expect(nodeHeader(inbound!, 'transfer-encoding')).toBe('chunked');
    expect(Buffer.from(inbound!.rawBody).toString()).toBe(`{"part":1,"more":"${'x'.repeat(70_000)}"}`);
  });

  it('waits for a slow sender', async () => {
    const { recorder, server } = await reader();
    const chunks = ['{"a":', '1,', '"b":', '2}'];
    const response = await send(server.port, { headers: { 'content-type': 'application/json' }, chunks, delayMs: 40 });
    expect(response.status).toBe(200);
    const { inbound } = await recorder.next();
    expect(Buffer.from(inbound!.rawBody).toString()).toBe('{"a":1,"b":2}');
  });

  it('reports options.url instead of req.url (adapters pass req.originalUrl)', async () => {
    const { recorder, server } = await reader({ url: '/mounted/hook?x=1' });
    await fetch(`${server.url}/hook?x=1`, { method: 'POST', body: 'x' });
    const { inbound } = await recorder.next();
    expect(inbound!.url).toBe('/mounted/hook?x=1');
  });

  it('keeps the bytes it read on req.rawBody, so a second call gets the same bytes', async () => {
    const recorder = createRecorder();
    server = await startServer((req, res) => {
      void (async () => {
        const first = await readInbound(req);
        const second = await readInbound(req);
        const none = { data: 0, end: 0, error: 0, close: 0 };
        recorder.push({ req, inbound: second, listeners: none, baseline: none, didRead: true });
        res.end(JSON.stringify([Buffer.from(first.rawBody).toString(), (req as { rawBody?: unknown }).rawBody === first.rawBody]));
      })();
    });
    const response = await fetch(server.url, { method: 'POST', body: 'once' });
    expect(await response.json()).toEqual(['once', true]);
    const { inbound } = await recorder.next();
    expect(Buffer.from(inbound!.rawBody).toString()).toBe('once');
  });

  it('leaves no listener on the request once it has settled', async () => {
    const { recorder, server } = await reader();
    await fetch(server.url, { method: 'POST', body: 'abc' });
    const { listeners, baseline } = await recorder.next();
    expect(listeners).toEqual(baseline);
  });
});

describe('readInbound: the abort signal', () => {
  it('rejects with BodyReadError at once when the signal is already aborted', async () => {
    const { recorder, server } = await reader(() => ({ signal: AbortSignal.abort(new Error('shutting down')) }));
    const response = await fetch(server.url, { method: 'POST', body: 'abc' });
    expect(response.status).toBe(400);
    const { error } = await recorder.next();
    expect(error).toBeInstanceOf(BodyReadError);
    expect((error as Error).message).toContain('shutting down');
  });

  it('stops a sender that stalls mid-body with BodyReadError, and the client still gets the answer', async () => {
    const { recorder, server } = await reader(() => ({ signal: AbortSignal.timeout(100) }));
    // 10 bytes announced, 3 sent, then the client waits: the timeout must end the read.
    const response = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      void import('node:http').then(({ request }) => {
        const req = request(
          { host: '127.0.0.1', port: server.port, method: 'POST', agent: false, headers: { 'content-length': '10' } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
            req.destroy();
          },
        );
        req.on('error', reject);
        req.write('abc');
      });
    });
    expect(response).toEqual({ status: 400, connection: 'close' });
    const { error, listeners, baseline } = await recorder.next();
    expect(error).toBeInstanceOf(BodyReadError);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(listeners).toEqual(baseline);
  });
});

describe('readInbound: bad inputs', () => {
  const fakeReq = { on() {}, headers: {}, method: 'GET' } as never;

  it.each([-1, 1.5, Number.NaN, '1024', null])('rejects maxBodyBytes %s with a ValidationError naming the option', async (value) => {
    const error = await readInbound(fakeReq, { maxBodyBytes: value as number }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ path: 'maxBodyBytes' });
  });

  it('rejects a Web Request and points to the Web path', async () => {
    const error = await readInbound(new Request('http://x/', { method: 'POST', body: 'a' }) as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('Web Request');
  });

  it.each([null, undefined, 'req', {}])('rejects %s, which is not an IncomingMessage', async (value) => {
    const error = await readInbound(value as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('IncomingMessage');
  });

  it('accepts maxBodyBytes 0 for an empty body and Infinity for any body', async () => {
    const { recorder, server } = await reader((req) => ({ maxBodyBytes: req.url === '/zero' ? 0 : Number.POSITIVE_INFINITY }));
    await fetch(`${server.url}/zero`, { method: 'POST', body: '' });
    await fetch(`${server.url}/any`, { method: 'POST', body: 'x'.repeat(2_000_000) });
    expect((await recorder.next()).inbound!.rawBody.byteLength).toBe(0);
    expect((await recorder.next()).inbound!.rawBody.byteLength).toBe(2_000_000);
  });
});

/** Node hands `IncomingMessage.headers` over as they are: a record of lower-case names. */
function nodeHeader(inbound: InboundRequest, name: string): unknown {
  return (inbound.headers as Record<string, unknown>)[name];
}
