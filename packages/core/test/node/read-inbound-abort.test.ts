import { afterEach, describe, expect, it } from 'vitest';
import { BodyReadError } from '../../src/errors';
import { readInbound } from '../../src/adapter';
import { sendThenDestroy } from './support/raw-client';
import { createRecorder, readerHandler, startServer, type Recorder, type TestServer } from './support/reader-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function reader(): Promise<{ recorder: Recorder; server: TestServer }> {
  const recorder = createRecorder();
  server = await startServer(readerHandler(recorder));
  return { recorder, server };
}

const head = (headers: string): string => `POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n\r\n`;

describe('a client that goes away mid-body', () => {
  it('rejects with BodyReadError when half of a Content-Length body arrives before the socket is destroyed', async () => {
    const { recorder, server } = await reader();
    await sendThenDestroy(server.port, head('Content-Length: 1000'), 'x'.repeat(500));
    const { error, listeners, baseline } = await recorder.next();
    expect(error).toBeInstanceOf(BodyReadError);
    expect(error).toMatchObject({ code: 'BODY_READ' });
    expect((error as Error).message).toContain('closed or reset the connection');
    expect(listeners).toEqual(baseline);
  });

  it('rejects with BodyReadError when a chunked body stops before its last chunk', async () => {
    const { recorder, server } = await reader();
    await sendThenDestroy(server.port, head('Transfer-Encoding: chunked'), '5\r\nhello\r\n');
    const { error, listeners, baseline } = await recorder.next();
    expect(error).toBeInstanceOf(BodyReadError);
    expect(listeners).toEqual(baseline);
  });

  it('rejects at once, instead of waiting forever, for a request destroyed before it was read', async () => {
    const recorder = createRecorder();
    server = await startServer((req) => {
      req.once('close', () => {
        readInbound(req).then(
          (inbound) => recorder.push({ req, inbound, listeners: counts(), baseline: counts(), didRead: true }),
          (error: unknown) => recorder.push({ req, error, listeners: counts(), baseline: counts(), didRead: false }),
        );
      });
    });
    await sendThenDestroy(server.port, head('Content-Length: 1000'), 'x'.repeat(10));
    const { error } = await recorder.next();
    expect(error).toBeInstanceOf(BodyReadError);
  });
});

const counts = () => ({ data: 0, end: 0, error: 0, close: 0 });
