import http from 'node:http';
import { describe, expect, it } from 'vitest';

import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

useTestServer();

describe('delivery', () => {
  it('delivers the raw body with its content type, forwarded headers and the service headers, signed for the exact URL', async () => {
    const url = `${destination.url}/hook?a=1&b=two`;
    const result = await t.messaging.enqueue({
      queue: 'orders',
      destination: url as `http://${string}`,
      body: '{"order":  1}',
      contentType: 'application/json',
      headers: { 'X-Tenant': 'acme' },
    });
    expect(result.messageId).toMatch(/^msg_/);
    const [received] = await destination.waitFor('/hook', 1);
    expect(received!.url).toBe('/hook?a=1&b=two');
    expect(received!.method).toBe('POST');
    expect(received!.text).toBe('{"order":  1}');
    expect(received!.headers['content-type']).toBe('application/json');
    expect(received!.headers['x-tenant']).toBe('acme');
    expect(received!.headers['service-forward-x-tenant']).toBeUndefined();
    expect(received!.headers['service-message-id']).toBe(result.messageId);
    expect(received!.headers['service-retried']).toBe('0');
    expect(received!.headers['service-caller-ip']).toBe('127.0.0.1');
    expect(received!.headers['user-agent']).toMatch(/mailroom/);
    const verified = (await t.verify(received!.headers['service-signature'], received!.body, url)) as {
      claims: { sub: string; iss: string };
    };
    expect(verified.claims.sub).toBe(url);
    expect(verified.claims.iss).toBe('Service');
  });

  it("sends a URL's credentials as Basic authorization and leaves out forwarded hop-by-hop headers", async () => {
    const withCredentials = destination.url.replace('http://', 'http://ada:p%40ss@');
    await raw(t, 'POST', `/v2/enqueue/q/${withCredentials}/creds`, {
      headers: { 'Service-Forward-Connection': 'upgrade', 'Service-Forward-Transfer-Encoding': 'chunked', 'Service-Forward-X-Kept': 'yes' },
      body: 'exact body',
    });
    const [received] = await destination.waitFor('/creds', 1);
    expect(received!.headers.authorization).toBe(`Basic ${Buffer.from('ada:p@ss').toString('base64')}`);
    expect(received!.headers['x-kept']).toBe('yes');
    expect(received!.headers.connection).not.toBe('upgrade');
    expect(received!.headers['transfer-encoding']).toBeUndefined();
    expect(received!.text).toBe('exact body');
  });

  it('calls the destination with the Method header, including a body-less GET', async () => {
    await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/put`, body: 'data', method: 'PUT' });
    await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/get`, method: 'GET' });
    const [put] = await destination.waitFor('/put', 1);
    const [get] = await destination.waitFor('/get', 1);
    expect([put!.method, put!.text]).toEqual(['PUT', 'data']);
    expect([get!.method, get!.text]).toEqual(['GET', '']);
  });

  it('passes binary bodies byte for byte and signs their exact bytes', async () => {
    const bytes = new Uint8Array([0, 255, 1, 128, 10, 13]);
    await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/bin`, body: bytes, contentType: 'application/octet-stream' });
    const [received] = await destination.waitFor('/bin', 1);
    expect([...received!.body]).toEqual([...bytes]);
    await expect(t.verify(received!.headers['service-signature'], received!.body, `${destination.url}/bin`)).resolves.toBeDefined();
  });

  it('waits the Delay, scaled by the time scale', async () => {
    const sent = Date.now();
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/later`, body: 'x', delay: '1m30s' });
    const [accepted] = await t.waitForEvents('accepted', 1, (event) => event.messageId === messageId);
    expect(accepted!.delayMs).toBe(90_000);
    const [received] = await destination.waitFor('/later', 1);
    expect(received!.at - sent).toBeGreaterThanOrEqual(85);
  });

  it('lets Not-Before win over Delay', async () => {
    const notBefore = Math.floor(Date.now() / 1000) + 20;
    const answer = await raw(t, 'POST', `/v2/enqueue/q/${destination.url}/nb`, {
      headers: { 'Service-Not-Before': String(notBefore), 'Service-Delay': '7d' },
      body: 'x',
    });
    const { messageId } = answer.body as { messageId: string };
    const [accepted] = await t.waitForEvents('accepted', 1, (event) => event.messageId === messageId);
    expect(accepted!.delayMs).toBeGreaterThan(15_000);
    expect(accepted!.delayMs).toBeLessThanOrEqual(20_000);
    await destination.waitFor('/nb', 1);
  });

  it('delivers at once when Not-Before is in the past', async () => {
    await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/past`, body: 'x', notBefore: new Date(Date.now() - 60_000) });
    await destination.waitFor('/past', 1);
  });

  it('sends the workflow headers of a workflow message', async () => {
    await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/step`,
      body: 'x',
      workflow: { runId: 'wfr_9', url: `${destination.url}/wf`, createdAt: 1_700_000_000_000 },
    });
    const [received] = await destination.waitFor('/step', 1);
    expect(received!.headers['service-workflow-runid']).toBe('wfr_9');
    expect(received!.headers['service-workflow-url']).toBe(`${destination.url}/wf`);
    expect(received!.headers['service-workflow-createdat']).toBe('1700000000000');
  });

  it('reads a percent-encoded URL destination too', async () => {
    const answer = await raw(t, 'POST', `/v2/enqueue/q/${encodeURIComponent(`${destination.url}/enc?a=1`)}`, { body: 'x' });
    expect(answer.status).toBe(200);
    const [received] = await destination.waitFor('/enc', 1);
    expect(received!.url).toBe('/enc?a=1');
  });

  it('publishes outside any queue with POST /v2/publish', async () => {
    const answer = await raw(t, 'POST', `/v2/publish/${destination.url}/pub`, { body: 'x' });
    expect(answer.body).toEqual({ messageId: expect.stringMatching(/^msg_/) });
    await destination.waitFor('/pub', 1);
  });

  it('keeps a header named __proto__ a header', async () => {
    // node:http, since fetch drops such a header; built with fromEntries, since a literal `__proto__` sets the prototype.
    const headers = Object.fromEntries([
      ['Authorization', `Bearer ${t.server.token}`],
      ['__proto__', 'x'],
      ['Service-Forward-__proto__', 'y'],
    ]);
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${t.server.url}/v2/enqueue/q/${destination.url}/proto`, { method: 'POST', headers }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end('x');
    });
    expect(status).toBe(200);
    const [received] = await destination.waitFor('/proto', 1);
    const index = received!.rawHeaders.indexOf('__proto__');
    expect(received!.rawHeaders[index + 1]).toBe('y');
  });
});
