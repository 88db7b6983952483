import express from 'express';
import express4 from 'express4';
import type { IncomingMessage, RequestListener } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RawBodyUnavailableError } from '../../src/errors';
import { captureRawBody } from '../../src/adapter';
import { send } from './support/raw-client';
import { createRecorder, readAndAnswer, startServer, type Recorder, type TestServer } from './support/reader-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const EXPRESS_HINT = 'use express.json({ verify: captureRawBody }) or mount the Mailroom route before express.json()';

/** Both majors expose the same surface we use; their type packages differ, so type them loosely. */
interface ExpressLike {
  (): ExpressApp;
  json(options?: object): unknown;
  raw(options?: object): unknown;
  text(options?: object): unknown;
  Router(): ExpressApp;
}
interface ExpressApp extends RequestListener {
  use(...handlers: unknown[]): ExpressApp;
  post(path: string, ...handlers: unknown[]): ExpressApp;
  get(path: string, ...handlers: unknown[]): ExpressApp;
  all(path: string, ...handlers: unknown[]): ExpressApp;
}

const majors: Array<[string, ExpressLike]> = [
  ['Express 5', express as unknown as ExpressLike],
  ['Express 4', express4 as unknown as ExpressLike],
];

/** The route an adapter would mount: reads with the Express hint and the original URL. */
function mailroomRoute(recorder: Recorder) {
  return (req: IncomingMessage & { originalUrl: string }, res: Parameters<RequestListener>[1]) =>
    void readAndAnswer(recorder, req, res, { consumedHint: EXPRESS_HINT, url: req.originalUrl });
}

const post = (url: string, body: string | Uint8Array, contentType?: string) =>
  fetch(url, { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body });

describe.each(majors)('%s', (_name, framework) => {
  it('reads the exact bytes captured by express.json({ verify: captureRawBody }), while req.body is parsed too', async () => {
    const recorder = createRecorder();
    const app = framework();
    app.use(framework.json({ verify: captureRawBody }));
    let parsed: unknown;
    app.post(
      '/hook',
      (req: { body: unknown }, _res: unknown, next: () => void) => {
        parsed = req.body;
        next();
      },
      mailroomRoute(recorder),
    );
    server = await startServer(app);
    // Key order, spacing and escapes that JSON.stringify(req.body) would not reproduce.
    const json = '{ "z": 1, "a": "\\u00e9",\n "n": 1.0 }';
    expect((await post(`${server.url}/hook`, json, 'application/json')).status).toBe(200);
    const { inbound } = await recorder.next();
    expect(Buffer.from(inbound!.rawBody).toString()).toBe(json);
    expect(parsed).toEqual({ z: 1, a: 'é', n: 1 });
  });

  it('answers a global express.json() without capture with RawBodyUnavailableError and the hint', async () => {
    const recorder = createRecorder();
    const app = framework();
    app.use(framework.json());
    app.post('/hook', mailroomRoute(recorder));
    server = await startServer(app);
    const response = await post(`${server.url}/hook`, '{"a":1}', 'application/json');
    expect(response.status).toBe(500);
    const message = await response.text();
    expect(message).toContain(`Fix: ${EXPRESS_HINT}`);
    const { error } = await recorder.next();
    expect(error).toBeInstanceOf(RawBodyUnavailableError);
    expect((error as Error).message).toContain('req.body holds the parsed result');
  });

  it('does not mistake "no body" for "consumed": GET and Content-Length: 0 behind express.json() give empty bytes', async () => {
    const recorder = createRecorder();
    const app = framework();
    app.use(framework.json());
    app.all('/hook', mailroomRoute(recorder));
    server = await startServer(app);
    expect((await fetch(`${server.url}/hook`)).status).toBe(200);
    // express.json() reads this one (Content-Length present) and sets req.body = {}.
    expect(
      (await send(server.port, { path: '/hook', headers: { 'content-type': 'application/json', 'content-length': '0' } })).status,
    ).toBe(200);
    const get = await recorder.next();
    const emptyPost = await recorder.next();
    expect(get.inbound!.rawBody.byteLength).toBe(0);
    expect(emptyPost.inbound!.rawBody.byteLength).toBe(0);
  });

  it('reads the stream when express.json() skipped a non-JSON request (Express 4 still sets req.body = {})', async () => {
    const recorder = createRecorder();
    const app = framework();
    app.use(framework.json());
    app.post('/hook', mailroomRoute(recorder));
    server = await startServer(app);
    expect((await post(`${server.url}/hook`, 'plain words', 'text/plain')).status).toBe(200);
    const { inbound } = await recorder.next();
    expect(Buffer.from(inbound!.rawBody).toString()).toBe('plain words');
  });

  it('uses the Buffer body of express.raw({ type: () => true }), binary and without Content-Type', async () => {
    const recorder = createRecorder();
    const app = framework();
    app.use(framework.raw({ type: () => true }));
    app.post('/hook', mailroomRoute(recorder));
    server = await startServer(app);
    const binary = Uint8Array.from([0x00, 0xff, 0x80, 0xc3, 0x28, 0x0a]);
    expect(
      (await send(server.port, { path: '/hook', headers: { 'content-length': String(binary.byteLength) }, chunks: [binary] })).status,
    ).toBe(200);
    const { inbound, req } = await recorder.next();
    expect([...inbound!.rawBody]).toEqual([...binary]);
    expect(inbound!.rawBody).toBe((req as { body?: unknown }).body);
  });

  it('refuses the decoded string of express.text(): its bytes may differ from what was signed', async () => {
    const recorder = createRecorder();
    const app = framework();
    app.use(framework.text());
    app.post('/hook', mailroomRoute(recorder));
    server = await startServer(app);
    // iconv-lite drops the byte-order mark, so the string is 3 bytes short of the body.
    const response = await post(`${server.url}/hook`, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hi')]), 'text/plain');
    expect(response.status).toBe(500);
    const { error } = await recorder.next();
    expect(error).toBeInstanceOf(RawBodyUnavailableError);
    expect((error as Error).message).toContain('req.body is decoded text');
  });

  it('accepts a UTF-8 string rawBody, and explains a string that cannot be the bytes that were sent', async () => {
    const recorder = createRecorder();
    const app = framework();
    app.post(
      '/utf8',
      framework.json({ verify: (req: { rawBody?: unknown }, _res: unknown, buf: Buffer) => (req.rawBody = buf.toString('utf8')) }),
      mailroomRoute(recorder),
    );
    app.post(
      '/latin1',
      framework.json({ verify: (req: { rawBody?: unknown }, _res: unknown, buf: Buffer) => (req.rawBody = buf.toString('latin1')) }),
      mailroomRoute(recorder),
    );
    server = await startServer(app);
    expect((await post(`${server.url}/utf8`, '{"a":"é✓"}', 'application/json')).status).toBe(200);
    expect((await post(`${server.url}/latin1`, '{"a":"é✓"}', 'application/json')).status).toBe(500);
    expect(Buffer.from((await recorder.next()).inbound!.rawBody).toString()).toBe('{"a":"é✓"}');
    const { error } = await recorder.next();
    expect(error).toBeInstanceOf(RawBodyUnavailableError);
    expect((error as Error).message).toContain('req.rawBody = buf');
  });

  it('reports req.originalUrl, mount path included', async () => {
    const recorder = createRecorder();
    const app = framework();
    const router = framework.Router();
    router.post('/hook', mailroomRoute(recorder));
    app.use('/mailroom', router);
    server = await startServer(app);
    await post(`${server.url}/mailroom/hook?x=1`, 'x');
    expect((await recorder.next()).inbound!.url).toBe('/mailroom/hook?x=1');
  });
});
