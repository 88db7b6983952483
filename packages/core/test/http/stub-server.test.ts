import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startStubServer, type StubServer } from '../support/stub-server';

// The stub is shared with the messaging and management client tests, so its own behaviour is pinned here.
let stub: StubServer;
beforeEach(async () => {
  stub = await startStubServer();
});
afterEach(() => stub.close());

describe('stub server', () => {
  it('listens on 127.0.0.1 with a random port', () => {
    expect(stub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('records method, raw path and query, parsed query, lower-cased headers and body', async () => {
    stub.reply({ status: 201, json: { id: 1 } });
    const response = await fetch(`${stub.url}/v2/a%20b?x=1&x=2&y=caf%C3%A9&z`, {
      method: 'POST',
      headers: { 'X-Custom': 'Value', 'Content-Type': 'application/json' },
      body: '{"hello":"wörld"}',
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: 1 });
    expect(response.headers.get('content-type')).toBe('application/json');
    const recorded = stub.requests[0];
    expect(recorded).toMatchObject({
      method: 'POST',
      url: '/v2/a%20b?x=1&x=2&y=caf%C3%A9&z',
      path: '/v2/a%20b',
      rawQuery: 'x=1&x=2&y=caf%C3%A9&z',
      query: { x: ['1', '2'], y: 'café', z: '' },
      text: '{"hello":"wörld"}',
    });
    expect(recorded?.headers['x-custom']).toBe('Value');
    expect(recorded?.rawHeaders).toContain('X-Custom');
    expect(new TextDecoder().decode(recorded?.body)).toBe('{"hello":"wörld"}');
    expect(recorded?.json()).toEqual({ hello: 'wörld' });
  });

  it('joins repeated request headers', async () => {
    stub.reply({ status: 200 });
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${stub.url}/h`, { headers: { 'X-Many': ['a', 'b'] } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    expect(stub.requests[0]?.headers['x-many']).toBe('a, b');
  });

  it('json() names the request when the body is not JSON', async () => {
    stub.reply({ status: 200 });
    await fetch(`${stub.url}/p`, { method: 'POST', body: 'nope' });
    expect(() => stub.requests[0]?.json()).toThrow('body of POST /p is not JSON');
  });

  it('uses the queue first, then the handler, then answers 501', async () => {
    stub.reply({ body: 'queued' });
    stub.handle((req) => ({ status: 202, body: `handled ${req.path}`, headers: { 'X-Multi': ['1', '2'] } }));
    const first = await fetch(`${stub.url}/a`);
    const second = await fetch(`${stub.url}/b`);
    expect(await first.text()).toBe('queued');
    expect(first.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(second.status).toBe(202);
    expect(await second.text()).toBe('handled /b');
    expect(second.headers.get('x-multi')).toBe('1, 2');
    stub.clear();
    const third = await fetch(`${stub.url}/c`);
    expect(third.status).toBe(501);
    expect(await third.json()).toEqual({ error: 'stub-server: no reply queued and no handler for GET /c' });
    expect(stub.requests).toHaveLength(1);
  });

  it('answers 501 with the message when the handler throws', async () => {
    stub.handle(() => {
      throw new Error('oops');
    });
    const response = await fetch(`${stub.url}/x`);
    expect(response.status).toBe(501);
    expect(await response.text()).toContain('handler threw: oops');
  });

  it('sends bytes as given and a custom status text', async () => {
    stub.reply({ status: 418, statusText: 'Teapot', body: new Uint8Array([1, 2, 3]) });
    const response = await fetch(`${stub.url}/x`);
    expect(response.statusText).toBe('Teapot');
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([1, 2, 3]);
  });

  it('reset destroys the socket: fetch fails', async () => {
    stub.reply({ reset: true });
    await expect(fetch(`${stub.url}/x`)).rejects.toThrow(TypeError);
    expect(stub.requests).toHaveLength(1);
  });

  it('delays an answer, and hang keeps it open until close', async () => {
    stub.reply({ body: 'late', delayMs: 30 }, { hang: true });
    const started = Date.now();
    expect(await (await fetch(`${stub.url}/a`)).text()).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    const hung = fetch(`${stub.url}/b`).then(
      () => 'answered',
      () => 'failed',
    );
    await stub.waitForRequests(2);
    await stub.close();
    expect(await hung).toBe('failed');
  });

  it('waitForRequests resolves at once when enough requests are in, and fails on close', async () => {
    stub.reply({ status: 200 });
    await fetch(`${stub.url}/a`);
    expect(await stub.waitForRequests(1)).toHaveLength(1);
    const waiting = stub.waitForRequests(5);
    await stub.close();
    await expect(waiting).rejects.toThrow('closed with 1 of 5 awaited requests');
  });
});
