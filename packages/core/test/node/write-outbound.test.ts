import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { writeOutbound } from '../../src/adapter';
import { startServer, type TestServer } from './support/reader-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('writeOutbound', () => {
  it('writes status, headers and the body, with Content-Length counted in bytes', async () => {
    const body = '{"message":"déjà ✓ 🚀"}';
    server = await startServer((req, res) => {
      req.resume();
      req.on('end', () =>
        writeOutbound(res, { status: 489, headers: { 'content-type': 'application/json', 'Service-NonRetryable-Error': 'true' }, body }),
      );
    });
    const response = await fetch(server.url, { method: 'POST', body: 'x' });
    expect(response.status).toBe(489);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('service-nonretryable-error')).toBe('true');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(body.length);
    expect(response.headers.get('connection')).not.toBe('close');
    expect(await response.text()).toBe(body);
  });

  it('replaces a wrong Content-Length given in the headers with the real one', async () => {
    server = await startServer((_req, res) => writeOutbound(res, { status: 200, headers: { 'content-length': '1' }, body: 'four' }));
    const response = await fetch(server.url);
    expect(response.headers.get('content-length')).toBe('4');
    expect(await response.text()).toBe('four');
  });

  it('answers an empty body with Content-Length: 0, also over a wrong length given in the headers and for HEAD', async () => {
    server = await startServer((req, res) => {
      req.resume();
      req.on('end', () => writeOutbound(res, { status: 200, headers: req.url === '/wrong' ? { 'content-length': '7' } : {}, body: '' }));
    });
    for (const path of ['/', '/wrong']) {
      const response = await fetch(server.url + path, { method: 'POST', body: 'x' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe('0');
      expect(await response.text()).toBe('');
    }
    const head = await fetch(server.url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('0');
  });

  it('sends no body and no Content-Length for 204, and Content-Length without a body for HEAD', async () => {
    server = await startServer((req, res) =>
      writeOutbound(res, {
        status: req.method === 'HEAD' ? 200 : 204,
        headers: {},
        body: req.method === 'HEAD' ? 'twelve bytes' : 'ignored',
      }),
    );
    const noContent = await fetch(server.url, { method: 'DELETE' });
    expect(noContent.status).toBe(204);
    expect(noContent.headers.get('content-length')).toBeNull();
    expect(await noContent.text()).toBe('');
    const head = await fetch(server.url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('12');
    expect(await head.text()).toBe('');
  });

  it('only ends the response when headers were already sent, and ignores a second call', async () => {
    const errors: unknown[] = [];
    server = await startServer((_req, res) => {
      try {
        res.writeHead(202, { 'content-type': 'text/plain' });
        res.write('started');
        writeOutbound(res, { status: 500, headers: { 'x-late': '1' }, body: 'too late' });
        writeOutbound(res, { status: 500, headers: {}, body: 'again' });
      } catch (error) {
        errors.push(error);
      }
    });
    const response = await fetch(server.url);
    expect(response.status).toBe(202);
    expect(response.headers.get('x-late')).toBeNull();
    expect(await response.text()).toBe('started');
    expect(errors).toEqual([]);
  });

  it('does nothing for a response whose client has gone', async () => {
    let outcome: unknown = 'not called';
    server = await startServer((req, res) => {
      res.on('close', () => {
        try {
          writeOutbound(res, { status: 200, headers: {}, body: 'nobody listens' });
          outcome = 'ok';
        } catch (error) {
          outcome = error;
        }
      });
      req.socket.destroy();
    });
    await fetch(server.url).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(outcome).toBe('ok');
  });

  it('closes the connection when the request body was left unread, and keeps it open otherwise', async () => {
    server = await startServer((req, res) => {
      if (req.url === '/read') {
        req.resume();
        req.on('end', () => writeOutbound(res, { status: 200, headers: {}, body: 'read' }));
        return;
      }
      // Stops after the first chunk, the way readInbound does after a 413.
      req.once('data', () => {
        req.pause();
        writeOutbound(res, { status: 413, headers: {}, body: 'stopped' });
      });
    });
    const port = server.port;
    // A keep-alive client, so that only the server's choice decides the Connection header.
    const agent = new Agent({ keepAlive: true });
    const connectionHeader = (path: string, body: Buffer) =>
      new Promise<string | undefined>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-length': String(body.byteLength) } },
          (res) => {
            res.resume();
            resolve(res.headers.connection);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      expect(await connectionHeader('/read', Buffer.alloc(100))).toBe('keep-alive');
      expect(await connectionHeader('/stop', Buffer.alloc(5_000_000))).toBe('close');
    } finally {
      agent.destroy();
    }
  });
});
