import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  AuthError,
  ConfigError,
  NotFoundError,
  PlanLimitError,
  RateLimitError,
  ValidationError,
  createMessagingClient,
  type EnqueueResult,
} from '../../src';
import { enqueueResult, enqueueResultDeduplicated, urlGroupEnqueueResult } from '../schemas/fixtures';
import { rejectionOf } from '../http/transport-fixture';
import { messagingFixture, type StubServer } from './client-fixture';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function setup(options = {}) {
  const fixture = await messagingFixture(options);
  stub = fixture.stub;
  return fixture;
}

describe('enqueue to a URL', () => {
  it('puts the URL verbatim into the path, query included, with every header and the exact body', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: enqueueResult });
    const result = await client.enqueue({
      queue: 'emails',
      destination: 'https://app.test/api/hook?tenant=acme&x=1',
      body: 'hello',
      contentType: 'text/plain',
      retries: 2,
      delay: '10s',
      headers: { 'X-Tenant': 'acme' },
      callback: { url: 'https://app.test/cb', retries: 1 },
    });
    expect(result).toEqual(enqueueResult);
    const [request] = stub.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v2/enqueue/emails/https://app.test/api/hook');
    expect(request?.rawQuery).toBe('tenant=acme&x=1');
    expect(request?.headers).toMatchObject({
      authorization: 'Bearer test-token',
      'content-type': 'text/plain',
      'service-retries': '2',
      'service-delay': '10s',
      'service-forward-x-tenant': 'acme',
      'service-callback': 'https://app.test/cb',
      'service-callback-retries': '1',
    });
    expect(request?.text).toBe('hello');
  });

  it('sends binary bodies byte for byte', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: enqueueResult });
    const bytes = new Uint8Array([0, 255, 128, 10, 13, 0xc3]);
    await client.enqueue({ queue: 'q', destination: 'http://app.test/bin', body: bytes, contentType: 'application/octet-stream' });
    expect([...(stub.requests[0]?.body ?? [])]).toEqual([...bytes]);
  });

  it('normalises the URL as fetch would send it (spaces encoded)', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: enqueueResult });
    await client.enqueue({ queue: 'q', destination: 'https://app.test/a b', body: '' });
    expect(stub.requests[0]?.path).toBe('/v2/enqueue/q/https://app.test/a%20b');
  });

  it('reports a deduplicated message', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: enqueueResultDeduplicated });
    const result = await client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x', deduplicationId: 'order-1' });
    expect(result.deduplicated).toBe(true);
    expect(stub.requests[0]?.headers['service-deduplication-id']).toBe('order-1');
  });

  it('uses the configured header prefix', async () => {
    const { stub, client } = await setup({ headerPrefix: 'Upstash' });
    stub.reply({ json: enqueueResult });
    await client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x', retries: 1 });
    expect(stub.requests[0]?.headers['upstash-retries']).toBe('1');
    expect(stub.requests[0]?.headers['service-retries']).toBeUndefined();
  });
});

describe('enqueue to a URL group and to an API', () => {
  it('answers one result per endpoint for a URL group', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: urlGroupEnqueueResult });
    const results = await client.enqueue({ queue: 'q', destination: 'order-events', body: '{}' });
    expect(results).toEqual(urlGroupEnqueueResult);
    expect(stub.requests[0]?.path).toBe('/v2/enqueue/q/order-events');
  });

  it('refuses a single object where a URL group must answer an array', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: enqueueResult });
    await expect(client.enqueue({ queue: 'q', destination: 'order-events', body: '{}' })).rejects.toThrow(/Unexpected response/);
  });

  it('keeps api/llm as two path segments and requires a callback', async () => {
    const { stub, client } = await setup();
    await expect(client.enqueue({ queue: 'q', destination: 'api/llm', body: '{}' })).rejects.toThrow(/callback/);
    expect(stub.requests).toHaveLength(0);
    stub.reply({ json: enqueueResult });
    await client.enqueue({ queue: 'q', destination: 'api/llm', body: '{}', callback: 'https://app.test/llm-answer' });
    expect(stub.requests[0]?.path).toBe('/v2/enqueue/q/api/llm');
  });
});

describe('enqueueJSON', () => {
  it('serialises the body and sets the JSON content type', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: enqueueResult });
    await client.enqueueJSON({ queue: 'q', destination: 'https://app.test/a', body: { a: 1, s: 'é' } });
    expect(stub.requests[0]?.text).toBe('{"a":1,"s":"é"}');
    expect(stub.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('refuses bodies JSON cannot represent', async () => {
    const { stub, client } = await setup();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(client.enqueueJSON({ queue: 'q', destination: 'https://app.test/a', body: cyclic })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(client.enqueueJSON({ queue: 'q', destination: 'https://app.test/a', body: undefined })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(stub.requests).toHaveLength(0);
  });
});

describe('bad input never reaches the service', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a destination without scheme', { queue: 'q', destination: 'app.test/hook' }, 'destination'],
    ['an ftp destination', { queue: 'q', destination: 'ftp://app.test/hook' }, 'destination'],
    ['an empty destination', { queue: 'q', destination: '' }, 'destination'],
    ['a fragment', { queue: 'q', destination: 'https://app.test/a#frag' }, 'destination'],
    ['a queue with a slash', { queue: 'a/b', destination: 'https://app.test' }, 'queue'],
    ['a missing queue', { destination: 'https://app.test' }, 'queue'],
    ['an object body', { queue: 'q', destination: 'https://app.test', body: { a: 1 } }, 'body'],
    ['negative retries', { queue: 'q', destination: 'https://app.test', retries: -1 }, 'retries'],
    ['a callback without scheme', { queue: 'q', destination: 'https://app.test', callback: 'app.test/cb' }, 'callback'],
    ['an invalid retry delay', { queue: 'q', destination: 'https://app.test', retryDelay: 'pow(2,' }, 'retryDelay'],
    ['an unknown option', { queue: 'q', destination: 'https://app.test', retry: 2 }, 'retry'],
  ];
  it.each(cases)('refuses %s', async (_name, request, path) => {
    const { stub, client } = await setup();
    const error = await rejectionOf(client.enqueue(request as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe(path);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('errors and retries', () => {
  it.each([
    [400, ApiError, 'invalid destination url: endpoint has invalid scheme, add http:// or https://'],
    [401, AuthError, 'unauthorized'],
    [404, NotFoundError, 'topic orders not found'],
    [412, PlanLimitError, 'retries exceeds the plan limit'],
    [500, ApiError, 'internal error'],
  ] as const)('maps %d to %s with the service message', async (status, type, message) => {
    const { stub, client } = await setup();
    stub.reply({ status, json: { error: message } });
    const error = await rejectionOf(client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x' }));
    expect(error).toBeInstanceOf(type);
    expect((error as ApiError).status).toBe(status);
    expect((error as ApiError).serviceMessage).toBe(message);
    expect(stub.requests).toHaveLength(1);
  });

  it('maps 429 with the daily RateLimit headers', async () => {
    const { stub, client } = await setup({ retry: false });
    stub.reply({
      status: 429,
      json: { error: 'daily limit' },
      headers: { 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1767225600' },
    });
    const error = (await rejectionOf(client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x' }))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.kind).toBe('daily');
    expect(error.limit).toBe(1000);
    expect(error.remaining).toBe(0);
    expect(error.reset?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('maps 429 with the Burst-RateLimit headers', async () => {
    const { stub, client } = await setup({ retry: false });
    stub.reply({
      status: 429,
      json: { error: 'burst' },
      headers: { 'Burst-RateLimit-Limit': '100', 'Burst-RateLimit-Remaining': '0', 'Burst-RateLimit-Reset': '1767225601' },
    });
    const error = (await rejectionOf(client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x' }))) as RateLimitError;
    expect(error.kind).toBe('burst');
    expect(error.limit).toBe(100);
    expect(error.reset?.getTime()).toBe(1767225601000);
  });

  it('never retries an enqueue without a deduplication id', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 503, json: { error: 'busy' } }, { json: enqueueResult });
    await expect(client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x' })).rejects.toBeInstanceOf(ApiError);
    expect(stub.requests).toHaveLength(1);
  });

  it('never retries a dropped connection without a deduplication id', async () => {
    const { stub, client } = await setup();
    stub.reply({ reset: true }, { json: enqueueResult });
    await expect(client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x' })).rejects.toThrow(/could not reach/);
    expect(stub.requests).toHaveLength(1);
  });

  it('retries an enqueue that carries a deduplication id, resending the same bytes', async () => {
    const { stub, client, delays } = await setup();
    stub.reply({ status: 503, json: { error: 'busy' } }, { reset: true }, { json: enqueueResult });
    const result = await client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x', deduplicationId: 'd1' });
    expect(result).toEqual(enqueueResult);
    expect(stub.requests).toHaveLength(3);
    expect(new Set(stub.requests.map((r) => `${r.path}|${r.text}|${r.headers['service-deduplication-id']}`)).size).toBe(1);
    expect(delays).toHaveLength(2);
  });

  it('does not retry a 400 even with a deduplication id', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 400, json: { error: 'bad' } }, { json: enqueueResult });
    await expect(
      client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x', deduplicationId: 'd1' }),
    ).rejects.toBeInstanceOf(ApiError);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('reads MAILROOM_URL and MAILROOM_TOKEN', async () => {
    const { stub } = await setup();
    stub.reply({ json: enqueueResult });
    const client = createMessagingClient({
      env: { MAILROOM_URL: stub.url, MAILROOM_TOKEN: 'env-token', MAILROOM_HEADER_PREFIX: 'Upstash' },
    });
    await client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x', retries: 0 });
    expect(stub.requests[0]?.headers.authorization).toBe('Bearer env-token');
    expect(stub.requests[0]?.headers['upstash-retries']).toBe('0');
  });

  it('keeps a /v2-less base URL path prefix intact', async () => {
    const { stub } = await setup();
    stub.reply({ json: enqueueResult });
    const client = createMessagingClient({ baseUrl: `${stub.url}/proxy/`, token: 't', env: {} });
    await client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: 'x' });
    expect(stub.requests[0]?.path).toBe('/proxy/v2/enqueue/q/https://app.test/a');
  });

  it('is created without its settings (a module-level client in a build), and names the missing one on first use', async () => {
    const firstUse = (options: Parameters<typeof createMessagingClient>[0]) => createMessagingClient(options).signingKeys.get();
    await expect(firstUse({ env: {} })).rejects.toBeInstanceOf(ConfigError);
    await expect(firstUse({ baseUrl: 'http://x.test', env: {} })).rejects.toThrow(/MAILROOM_TOKEN/);
    await expect(firstUse({ token: 't', env: {} })).rejects.toThrow(
      /MAILROOM_URL.*A \.env file counts only once it is loaded.*--env-file=\.env.*@nestjs\/config/,
    );
    // Settings that are all there are read at once: a wrong one is refused at creation.
    expect(() => createMessagingClient({ baseUrl: 'x.test', token: 't', env: {} })).toThrow(/http:\/\//);
    expect(() => createMessagingClient({ baseUrl: 'http://x.test', token: 't', headerPrefix: 'a b', env: {} })).toThrow(ConfigError);
    expect(() => createMessagingClient({ baseUrl: 'http://x.test', token: 't', timeoutMs: -1, env: {} })).toThrow(/timeoutMs/);
    // The variables are read again on the next use: set late, they work.
    const env: Record<string, string> = {};
    const late = createMessagingClient({ env, retry: false });
    await expect(late.signingKeys.get()).rejects.toBeInstanceOf(ConfigError);
    env.MAILROOM_URL = 'http://127.0.0.1:1';
    env.MAILROOM_TOKEN = 't';
    await expect(late.signingKeys.get()).rejects.toMatchObject({ name: 'NetworkError' });
  });
});

describe('result types', () => {
  it('types a URL or API destination as one result and a group as an array', () => {
    const client = createMessagingClient({ baseUrl: 'http://x.test', token: 't', env: {} });
    const viaUrl = () => client.enqueue({ queue: 'q', destination: 'https://app.test/a', body: '' });
    const viaHttp = () => client.enqueueJSON({ queue: 'q', destination: 'http://app.test/a', body: { a: 1 } });
    const viaApi = () => client.enqueue({ queue: 'q', destination: 'api/llm', body: '', callback: 'https://a.test' });
    const viaGroup = () => client.enqueue({ queue: 'q', destination: 'order-events', body: '' });
    const dynamic: string = 'order-events';
    const viaUnknown = () => client.enqueue({ queue: 'q', destination: dynamic, body: '' });
    expectTypeOf(viaUrl).returns.resolves.toEqualTypeOf<EnqueueResult>();
    expectTypeOf(viaHttp).returns.resolves.toEqualTypeOf<EnqueueResult>();
    expectTypeOf(viaApi).returns.resolves.toEqualTypeOf<EnqueueResult>();
    expectTypeOf(viaGroup).returns.resolves.toEqualTypeOf<EnqueueResult[]>();
    expectTypeOf(viaUnknown).returns.resolves.toEqualTypeOf<EnqueueResult | EnqueueResult[]>();
    expectTypeOf<EnqueueResult>().toHaveProperty('messageId').toEqualTypeOf<string>();
  });
});

describe('batch timeout', () => {
  it('gives a large batch more time than one message: a millisecond per item on top of the client timeout', async () => {
    const { stub, client } = await setup({ timeoutMs: 50, retry: false });
    const items = Array.from({ length: 500 }, (_, index) => ({ destination: `https://app.test/${index}` as const, body: 'x' }));
    stub.reply({ json: items.map((_, index) => ({ messageId: `msg_${index}` })), delayMs: 200 });
    expect(await client.batch(items)).toHaveLength(500);
    stub.reply({ hang: true });
    const error = await rejectionOf(client.batch(items.slice(0, 1)));
    expect(error).toMatchObject({ name: 'NetworkError', timedOut: true, outcomeUnknown: true });
  });
});
