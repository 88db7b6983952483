import { request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { DEFAULT_CREDENTIALS } from '../src/credentials';
import { createEventBus } from '../src/events';
import { createHttpServer } from '../src/http/node-server';
import { readJson } from '../src/http/router';
import type { Route } from '../src/http/router';
import { createLogger } from '../src/events';
import { describe, expect, it } from 'vitest';
import { startTestServer, t, useTestServer } from './helpers/test-server';

// A page on 127.0.0.1:8288 that can send and delete is a target for every website its user visits.
// These are the attacks, made the way a browser would make them (raw requests, so every header is
// exactly what an attacker's page could cause), and what the server answers.

useTestServer();

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(method: string, path: string, headers: Record<string, string>, body = ''): Promise<Raw> {
  const { port } = new URL(t.server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const bearer = () => ({ authorization: `Bearer ${t.server.token}` });
const publishPath = () => `/v2/publish/http://127.0.0.1:9/x`;

async function nothingAccepted(): Promise<void> {
  expect((await t.messaging.logs.list()).events).toEqual([]);
}

describe('the console page', () => {
  it('is served without the token but holds no secret, and forbids framing and foreign scripts', async () => {
    const page = await raw('GET', '/console/', {});
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<div id="app">');
    // Its settings are in it as data (no script runs inline), so its first request is for rows.
    const inline = /<script type="application\/json" id="mailroom-settings">(.*?)<\/script>/.exec(page.body)?.[1];
    expect(JSON.parse(inline ?? 'null')).toMatchObject({ url: t.server.url, headerPrefix: expect.any(String) });
    for (const secret of [t.server.token, t.server.readOnlyToken, t.server.currentSigningKey, t.server.nextSigningKey]) {
      expect(page.body).not.toContain(secret);
      expect((await raw('GET', '/console/messages/deep-link', {})).body).not.toContain(secret);
    }
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    expect((await raw('GET', '/', {})).headers.location).toBe('/console/');
  });

  it('prints a console link that carries the token in its fragment (never sent to a server)', () => {
    expect(t.server.consoleUrl).toBe(`${t.server.url}/console/#token=${t.server.token}`);
  });

  it('never serves a file outside its folder', async () => {
    for (const path of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/..%2f..%2fpackage.json']) {
      const answer = await raw('GET', path, {});
      expect(answer.body).not.toContain('"name": "@mailroom/dev-server"');
    }
  });

  it('opens no API call without the token', async () => {
    expect((await raw('GET', '/v2/events', {})).status).toBe(401);
    expect((await raw('POST', publishPath(), { 'content-type': 'text/plain' }, 'x')).status).toBe(401);
  });
});

describe('cross-site requests', () => {
  it('refuses a cross-site form post, even one that somehow carried the token', async () => {
    const form = { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' };
    const withoutToken = await raw('POST', publishPath(), form, 'a=1');
    expect(withoutToken.status).toBe(403);
    expect(JSON.parse(withoutToken.body).error).toMatch(/requests from https:\/\/evil.example are refused/);
    expect((await raw('POST', publishPath(), { ...form, ...bearer() }, 'a=1')).status).toBe(403);
    expect((await raw('DELETE', '/v2/dlq?all=true', { origin: 'https://evil.example', ...bearer() })).status).toBe(403);
    await nothingAccepted();
  });

  it('refuses what the browser marks cross-site, a null origin (sandboxed frames), and a preflight', async () => {
    expect((await raw('POST', publishPath(), { 'sec-fetch-site': 'cross-site', ...bearer() }, 'x')).status).toBe(403);
    expect((await raw('POST', publishPath(), { origin: 'null', ...bearer() }, 'x')).status).toBe(403);
    const preflight = await raw('OPTIONS', '/v2/events', { origin: 'https://evil.example', 'access-control-request-method': 'GET' });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    // Another port on localhost is another origin too.
    expect((await raw('GET', '/v2/events', { origin: 'http://127.0.0.1:3000', ...bearer() })).status).toBe(403);
    await nothingAccepted();
  });

  it('answers its own console (same origin) and clients that send no origin at all', async () => {
    const { port } = new URL(t.server.url);
    expect((await raw('GET', '/v2/events', { origin: `http://127.0.0.1:${port}`, ...bearer() })).status).toBe(200);
    expect((await raw('GET', '/v2/events', { origin: `http://localhost:${port}`, host: `localhost:${port}`, ...bearer() })).status).toBe(
      200,
    );
    expect((await raw('GET', '/v2/events', bearer())).status).toBe(200);
  });
});

describe('DNS rebinding', () => {
  it('answers only loopback names and IP addresses, whatever the path', async () => {
    const { port } = new URL(t.server.url);
    for (const host of [`evil.example:${port}`, `attacker.127.0.0.1.nip.io:${port}`, 'evil.example']) {
      for (const path of ['/console/', '/v2/events', '/management/v2/messaging/users']) {
        const answer = await raw('GET', path, { host, ...bearer() });
        expect(answer.status, `${host} ${path}`).toBe(403);
        expect(JSON.parse(answer.body).error).toMatch(/DNS rebinding/);
      }
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `app.localhost:${port}`]) {
      expect((await raw('GET', '/v2/events', { host, ...bearer() })).status, host).toBe(200);
    }
  });

  it('refuses a Host that is not a name or address with an optional numeric port (400), before any route', async () => {
    const { port } = new URL(t.server.url);
    const malformed = [
      '127.0.0.1:@evil.example',
      `localhost:${port}@evil.example`,
      'localhost:80@evil.example',
      'localhost:notaport',
      'localhost:99999',
      '127.0.0.1:',
      '[::1',
      '[evil.example]:80',
      'user@localhost',
      'localhost/x',
    ];
    for (const host of malformed) {
      for (const path of ['/v2/events', '/v2/workflows/hooks/u/wfr_x/evt_x']) {
        const answer = await raw('GET', path, { host, ...bearer() });
        expect(answer.status, `${host} ${path}`).toBe(400);
        expect(JSON.parse(answer.body).error).toMatch(/malformed Host header/);
      }
    }
  });

  it('answers a host name given with allowedHosts', async () => {
    const server = await startTestServer({ allowedHosts: ['host.docker.internal'] });
    try {
      const { port } = new URL(server.server.url);
      const answer = await new Promise<number>((resolve, reject) => {
        request(
          {
            host: '127.0.0.1',
            port,
            path: '/v2/events',
            headers: { host: `host.docker.internal:${port}`, authorization: `Bearer ${server.server.token}` },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
          .on('error', reject)
          .end();
      });
      expect(answer).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('malformed requests', () => {
  it('answers a malformed console path with 400, logging nothing', async () => {
    for (const path of ['/console/%', '/console/%E0', '/console/%zz/x.js']) {
      const answer = await raw('GET', path, {});
      expect([path, answer.status]).toEqual([path, 400]);
      expect(JSON.parse(answer.body).error).toMatch(/malformed percent-encoding/);
    }
    expect(t.events.filter((event) => event.type === 'error')).toEqual([]);
  });

  it('treats an upload the client abandons as the client’s failure: no error logged, the server answers the next request', async () => {
    const { port } = new URL(t.server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${publishPath()} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.server.token}\r\nContent-Length: 1000\r\n\r\n0123456789`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await raw('GET', '/v2/events', bearer())).status).toBe(200);
    expect(t.events.filter((event) => event.type === 'error')).toEqual([]);
    await nothingAccepted();
  });

  it('logs an unexpected failure as one line without a stack', () => {
    const lines: string[] = [];
    const log = createLogger('text', (line) => lines.push(line))!;
    log({ type: 'error', message: 'GET /x: Error: first\n    at frame (file.js:1:1)' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
  });
});

describe('origins', () => {
  it('answers only the exact origin the request was sent to, not every allowed host name on the port', async () => {
    const { port } = new URL(t.server.url);
    for (const origin of [
      `http://localhost:${port}`,
      `http://127.0.0.2:${port}`,
      `http://app.localhost:${port}`,
      `https://127.0.0.1:${port}`,
    ]) {
      expect([origin, (await raw('GET', '/v2/events', { origin, ...bearer() })).status]).toEqual([origin, 403]);
    }
    expect((await raw('GET', '/v2/events', { origin: `http://127.0.0.1:${port}`, ...bearer() })).status).toBe(200);
  });
});

describe('slow and oversized requests', () => {
  it('refuses a declared length over the limit at once, and cuts off a request that never completes', async () => {
    const huge = await raw('POST', '/v2/topics/g/endpoints', { ...bearer(), 'content-length': String(50 * 1024 * 1024) });
    expect(huge.status).toBe(400);
    const echo: Route = {
      method: 'POST',
      path: '/echo',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      body: 'payload',
      handler: async (request) => ({ json: await readJson(request) }),
    };
    const server = createHttpServer({
      routes: [echo],
      credentials: DEFAULT_CREDENTIALS,
      events: createEventBus(),
      guard: { check: () => {} },
      consoleSettings: () => ({
        url: '',
        headerPrefix: 'Service',
        issuer: 'Service',
        plan: 'free',
        region: null,
        timeScale: 1,
        dataDir: false,
      }),
      readOnly: { secrets: () => [] },
      refuseIfThrottled: () => {},
      timeouts: { requestTimeout: 300, headersTimeout: 200, connectionsCheckingInterval: 50 },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      let answer = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      // Declares a kilobyte, sends ten bytes, then nothing.
      socket.write(
        `POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${DEFAULT_CREDENTIALS.token}\r\nContent-Length: 1000\r\n\r\n0123456789`,
      );
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
