import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResponseValidationError, ValidationError } from '../../src/errors';
import { createRequester } from '../../src/http';
import { startStubServer, type StubServer } from '../support/stub-server';
import { rejectionOf, transportFor } from './transport-fixture';

let stub: StubServer;
beforeEach(async () => {
  stub = await startStubServer();
});
afterEach(() => stub.close());

describe('request URL', () => {
  it('keeps the base path prefix, encodes raw segments and builds the query', async () => {
    stub.reply({ status: 200 });
    const { transport } = transportFor(stub, { baseUrl: `${stub.url}/base/` });
    await transport.request({
      method: 'GET',
      path: ['v2', 'topics', 'a b/c?d', 'endpoints'],
      query: { cursor: 'x y&z', count: 5, fromDate: undefined, ok: true },
    });
    expect(stub.requests[0]).toMatchObject({
      method: 'GET',
      path: '/base/v2/topics/a%20b%2Fc%3Fd/endpoints',
      rawQuery: 'cursor=x%20y%26z&count=5&ok=true',
      query: { cursor: 'x y&z', count: '5', ok: 'true' },
    });
  });

  it('takes a pre-built string path as is', async () => {
    stub.reply({ status: 200 });
    await transportFor(stub, { baseUrl: `${stub.url}/v2` }).transport.request({ method: 'GET', path: '/workflows/dlq' });
    expect(stub.requests[0]?.url).toBe('/v2/workflows/dlq');
  });
});

describe('bodies and headers', () => {
  it('sends json with Content-Type application/json and the default headers', async () => {
    stub.reply({ json: { messageId: 'msg_1' } });
    const { transport } = transportFor(stub, { userAgent: 'my-app/1.0' });
    const response = await transport.request({
      method: 'POST',
      path: 'v2/publish',
      json: { hello: 'wörld' },
      headers: { 'Service-Retries': '3' },
    });
    const recorded = stub.requests[0];
    expect(recorded?.json()).toEqual({ hello: 'wörld' });
    expect(recorded?.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'my-app/1.0',
      'service-retries': '3',
      authorization: 'Bearer test-token',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(response.text)).toEqual({ messageId: 'msg_1' });
    expect(response.url).toBe(`${stub.url}/v2/publish`);
  });

  it('lets the caller override Content-Type and accepts a Headers object', async () => {
    stub.reply({ status: 200 });
    await transportFor(stub).transport.request({
      method: 'POST',
      path: 'p',
      json: { a: 1 },
      headers: new Headers({ 'Content-Type': 'application/vnd.custom+json' }),
    });
    expect(stub.requests[0]?.headers['content-type']).toBe('application/vnd.custom+json');
  });

  it('sends a string or byte body as is', async () => {
    stub.reply({ status: 200 }, { status: 200 });
    const { transport } = transportFor(stub);
    await transport.request({ method: 'PUT', path: 'a', body: 'plain text', headers: { 'Content-Type': 'text/plain' } });
    const bytes = new Uint8Array([0, 255, 1, 128, 10]);
    await transport.request({ method: 'DELETE', path: 'b', body: bytes });
    expect(stub.requests[0]?.text).toBe('plain text');
    expect(stub.requests[0]?.headers['content-type']).toBe('text/plain');
    expect([...(stub.requests[1]?.body ?? [])]).toEqual([0, 255, 1, 128, 10]);
  });

  it('sends no body and no Content-Type without body or json', async () => {
    stub.reply({ status: 200 });
    await transportFor(stub).transport.request({ method: 'POST', path: 'a' });
    expect(stub.requests[0]?.body.length).toBe(0);
    expect(stub.requests[0]?.headers['content-type']).toBeUndefined();
  });

  it.each([
    ['body: give either body or json', { method: 'POST', path: 'a', body: 'x', json: {} }],
    ['body: a GET request cannot carry a body', { method: 'GET', path: 'a', json: {} }],
    ['body: must be a string or a Uint8Array', { method: 'POST', path: 'a', body: 5 }],
    ['json: cannot be serialised', { method: 'POST', path: 'a', json: () => 1 }],
    ['json: cannot be serialised', { method: 'POST', path: 'a', json: { n: 1n } }],
    ['method: must be one of', { method: 'HEAD', path: 'a' }],
    ['path[1]: a path segment must not be empty', { method: 'GET', path: ['a', ''] }],
    ['headers: invalid header', { method: 'GET', path: 'a', headers: { 'bad header': 'x' } }],
    ['headers: invalid header', { method: 'GET', path: 'a', headers: { ok: 'line\nbreak' } }],
    ['signal: must be an AbortSignal', { method: 'GET', path: 'a', signal: {} }],
  ])('rejects a bad request before sending anything: %s', async (message, spec) => {
    const error = await rejectionOf(transportFor(stub).transport.request(spec as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(message);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('responses', () => {
  it('accepts an empty 200 body', async () => {
    stub.reply({ status: 200 });
    const response = await transportFor(stub).transport.request({
      method: 'POST',
      path: ['v2', 'topics', 't', 'endpoints'],
      json: { endpoints: [] },
    });
    expect(response).toMatchObject({ status: 200, text: '' });
  });

  it('returns any 2xx', async () => {
    stub.reply({ status: 201, body: 'created' }, { status: 204 });
    const { transport } = transportFor(stub);
    expect((await transport.request({ method: 'POST', path: 'a' })).status).toBe(201);
    expect((await transport.request({ method: 'POST', path: 'a' })).status).toBe(204);
  });

  it('requestJson parses the body and hands the URL to the parser', async () => {
    stub.reply({ json: [{ messageId: 'msg_1', url: 'https://x' }] });
    const seen: Array<{ value: unknown; url: string }> = [];
    const result = await transportFor(stub).transport.requestJson({ method: 'GET', path: ['v2', 'topics'] }, (value, url) => {
      seen.push({ value, url });
      return value as Array<{ messageId: string }>;
    });
    expect(result[0]?.messageId).toBe('msg_1');
    expect(seen).toEqual([{ value: [{ messageId: 'msg_1', url: 'https://x' }], url: `${stub.url}/v2/topics` }]);
  });

  it('requestJson gives undefined to the parser for an empty body', async () => {
    stub.reply({ status: 200 });
    const value = await transportFor(stub).transport.requestJson({ method: 'GET', path: 'a' }, (v) => v);
    expect(value).toBeUndefined();
  });

  it('requestJson throws ResponseValidationError for a 2xx body that is not JSON', async () => {
    stub.reply({ status: 200, body: '<html>proxy</html>' });
    const error = await rejectionOf(transportFor(stub).transport.requestJson({ method: 'GET', path: 'a' }, (v) => v));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ field: '', url: `${stub.url}/a` });
    expect((error as Error).message).toContain('is not JSON');
  });

  it('requestJson lets the parser’s own error through', async () => {
    stub.reply({ json: { nope: true } });
    const parse = (_: unknown, url: string): never => {
      throw new ResponseValidationError({ field: 'messageId', url, reason: 'is missing' });
    };
    const error = await rejectionOf(transportFor(stub).transport.requestJson({ method: 'GET', path: 'a' }, parse));
    expect(error).toMatchObject({ field: 'messageId' });
  });
});

describe('fetch option', () => {
  it('looks up globalThis.fetch at call time', async () => {
    stub.reply({ status: 200 });
    const transport = createRequester({ baseUrl: stub.url, auth: { kind: 'bearer', token: 't' } });
    const original = globalThis.fetch;
    const calls: string[] = [];
    globalThis.fetch = (input, init) => {
      calls.push(String(input));
      return original(input, init);
    };
    try {
      await transport.request({ method: 'GET', path: 'late' });
    } finally {
      globalThis.fetch = original;
    }
    expect(calls).toEqual([`${stub.url}/late`]);
  });

  it('uses an injected fetch', async () => {
    stub.reply({ status: 200 });
    const calls: string[] = [];
    const transport = createRequester({
      baseUrl: stub.url,
      auth: { kind: 'bearer', token: 't' },
      fetch: (input, init) => {
        calls.push(String(input));
        return fetch(input, init);
      },
    });
    await transport.request({ method: 'GET', path: 'x' });
    expect(calls).toEqual([`${stub.url}/x`]);
    expect(stub.requests).toHaveLength(1);
  });
});
