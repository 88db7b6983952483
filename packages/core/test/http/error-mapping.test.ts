import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, AuthError, NotFoundError, PlanLimitError, RateLimitError } from '../../src/errors';
import { errorMessageFromBody } from '../../src/http';
import { startStubServer, type StubServer } from '../support/stub-server';
import { rejectionOf, transportFor } from './transport-fixture';

let stub: StubServer;
beforeEach(async () => {
  stub = await startStubServer();
});
afterEach(() => stub.close());

// POST is not retry-safe by default, so each case sees exactly one answer.
async function failWith(reply: Parameters<StubServer['reply']>[0], now?: number): Promise<ApiError> {
  stub.reply(reply);
  const { transport } = transportFor(stub, now === undefined ? {} : { now: () => now });
  const error = await rejectionOf(transport.request({ method: 'POST', path: ['v2', 'publish', 'x'], json: {} }));
  expect(stub.requests).toHaveLength(1);
  return error as ApiError;
}

describe('error mapping', () => {
  it.each([
    [400, ApiError, 'API', 'invalid destination url: endpoint has invalid scheme, add http:// or https://'],
    [401, AuthError, 'AUTH', 'unauthorized'],
    [403, AuthError, 'AUTH', 'read-only token'],
    [404, NotFoundError, 'NOT_FOUND', 'topic t not found'],
    [412, PlanLimitError, 'PLAN_LIMIT', 'max retries exceeded'],
    [500, ApiError, 'API', 'internal error'],
  ] as const)('%i -> its typed error with the service message', async (status, type, code, message) => {
    const error = await failWith({ status, json: { error: message } });
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ status, code, serviceMessage: message, method: 'POST', url: `${stub.url}/v2/publish/x` });
    expect(error.message).toContain(`POST ${stub.url}/v2/publish/x failed with ${status}: ${message}`);
  });

  it('tells 401 and 403 apart in the hint', async () => {
    expect((await failWith({ status: 401, json: { error: 'bad token' } })).message).toContain('MAILROOM_TOKEN');
    stub.clear();
    expect((await failWith({ status: 403, json: { error: 'read only' } })).message).toContain('read-only token');
  });

  it('429 with RateLimit-* headers is a daily RateLimitError with a Unix-seconds reset', async () => {
    const error = await failWith({
      status: 429,
      headers: { 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1767312000' },
      json: { error: 'daily limit reached' },
    });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ kind: 'daily', limit: 1000, remaining: 0, reset: new Date('2026-01-02T00:00:00Z'), status: 429 });
    expect(error.message).toContain('resets at 2026-01-02T00:00:00.000Z');
  });

  it('429 with Burst-RateLimit-* headers is a burst RateLimitError', async () => {
    const now = Date.UTC(2026, 0, 1);
    const error = await failWith(
      {
        status: 429,
        headers: { 'Burst-RateLimit-Limit': '100', 'Burst-RateLimit-Remaining': '0', 'Burst-RateLimit-Reset': String(now / 1000 + 1) },
        json: { error: 'burst' },
      },
      now,
    );
    expect(error).toMatchObject({ kind: 'burst', limit: 100, remaining: 0, reset: new Date(now + 1000) });
  });

  it('429 with a small reset reads it as seconds from now', async () => {
    const now = Date.UTC(2026, 0, 1);
    const error = await failWith({ status: 429, headers: { 'Burst-RateLimit-Reset': '2' }, body: '' }, now);
    expect(error).toMatchObject({ kind: 'burst', reset: new Date(now + 2000), limit: undefined });
  });

  it('429 without headers is an unknown RateLimitError', async () => {
    const error = await failWith({ status: 429, json: { error: 'slow down' } });
    expect(error).toMatchObject({ kind: 'unknown', limit: undefined, remaining: undefined, reset: undefined });
  });

  it('uses the text of a non-JSON error body', async () => {
    const error = await failWith({ status: 502, body: 'Bad gateway from the proxy\n' });
    expect(error).toMatchObject({ status: 502, serviceMessage: 'Bad gateway from the proxy' });
  });

  it('uses the text of JSON without a string error field', async () => {
    expect(await failWith({ status: 400, json: { message: 'other shape' } })).toMatchObject({
      serviceMessage: '{"message":"other shape"}',
    });
  });

  it('truncates a long body to 500 characters', async () => {
    const error = await failWith({ status: 500, body: `<html>${'x'.repeat(2000)}</html>` });
    expect(error.serviceMessage).toHaveLength(503);
    expect(error.serviceMessage.endsWith('...')).toBe(true);
  });

  it('falls back to the status text for an empty body', async () => {
    expect(await failWith({ status: 418, statusText: "I'm a teapot" })).toMatchObject({ serviceMessage: "I'm a teapot" });
  });

  it('falls back to "HTTP <status>" without body or status text', () => {
    expect(errorMessageFromBody('', 599, '')).toBe('HTTP 599');
    expect(errorMessageFromBody('  ', 500, ' ')).toBe('HTTP 500');
    expect(errorMessageFromBody('{"error":""}', 500, 'Internal Server Error')).toBe('{"error":""}');
  });

  it('maps a 4xx on a GET without retrying it', async () => {
    stub.reply({ status: 400, json: { error: 'bad cursor' } }, { status: 200 });
    const error = await rejectionOf(transportFor(stub).transport.request({ method: 'GET', path: 'a' }));
    expect(error).toMatchObject({ status: 400, serviceMessage: 'bad cursor' });
    expect(stub.requests).toHaveLength(1);
  });
});
