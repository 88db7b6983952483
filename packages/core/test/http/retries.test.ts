import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, NotFoundError, RateLimitError } from '../../src/errors';
import { startStubServer, type StubServer } from '../support/stub-server';
import { rejectionOf, transportFor } from './transport-fixture';

let stub: StubServer;
beforeEach(async () => {
  stub = await startStubServer();
});
afterEach(() => stub.close());

const NOW = Date.UTC(2026, 0, 1, 12);
const ok = { json: { ok: true } };

describe('retries on retry-safe requests', () => {
  it('retries a GET on 503 with exponential full-jitter backoff', async () => {
    stub.reply({ status: 503 }, { status: 500 }, { status: 502 }, ok);
    const { transport, delays } = transportFor(stub, { retry: { retries: 3, baseDelayMs: 100, maxDelayMs: 1000 } });
    const response = await transport.request({ method: 'GET', path: 'a' });
    expect(response.status).toBe(200);
    expect(stub.requests).toHaveLength(4);
    // random() = 0.5 of 100, 200, 400
    expect(delays).toEqual([50, 100, 200]);
  });

  it('retries a network reset and sends the same body again', async () => {
    stub.reply({ reset: true }, { reset: true }, ok);
    const { transport, delays } = transportFor(stub);
    const bytes = new Uint8Array([1, 2, 3]);
    await transport.request({ method: 'POST', path: 'enqueue', body: bytes, retrySafe: true });
    expect(stub.requests).toHaveLength(3);
    for (const recorded of stub.requests) expect([...recorded.body]).toEqual([1, 2, 3]);
    expect(delays).toHaveLength(2);
  });

  it('re-sends a json body on every attempt', async () => {
    stub.reply({ status: 504 }, ok);
    await transportFor(stub).transport.request({ method: 'POST', path: 'a', json: { n: 1 }, retrySafe: true });
    expect(stub.requests.map((r) => r.json())).toEqual([{ n: 1 }, { n: 1 }]);
  });

  it('honours Retry-After on a 429', async () => {
    stub.reply({ status: 429, headers: { 'Retry-After': '2' }, json: { error: 'slow' } }, ok);
    const { transport, delays } = transportFor(stub, { now: () => NOW });
    await transport.request({ method: 'GET', path: 'a' });
    expect(delays).toEqual([2000]);
  });

  it('waits until the burst reset on a 429', async () => {
    stub.reply(
      {
        status: 429,
        headers: { 'Burst-RateLimit-Limit': '100', 'Burst-RateLimit-Remaining': '0', 'Burst-RateLimit-Reset': String(NOW / 1000 + 1) },
      },
      ok,
    );
    const { transport, delays } = transportFor(stub, { now: () => NOW });
    await transport.request({ method: 'GET', path: 'a' });
    expect(delays).toEqual([1000]);
  });

  it('honours Retry-After on a 503 too', async () => {
    stub.reply({ status: 503, headers: { 'Retry-After': '3' } }, ok);
    const { transport, delays } = transportFor(stub, { now: () => NOW });
    await transport.request({ method: 'GET', path: 'a' });
    expect(delays).toEqual([3000]);
  });

  it('does not wait out a daily reset hours away: throws the RateLimitError at once', async () => {
    stub.reply(
      { status: 429, headers: { 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(NOW / 1000 + 3600) } },
      ok,
    );
    const { transport, delays } = transportFor(stub, { now: () => NOW });
    const error = await rejectionOf(transport.request({ method: 'GET', path: 'a' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ kind: 'daily', reset: new Date(NOW + 3_600_000) });
    expect(stub.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('throws the last typed error once the budget is spent', async () => {
    stub.reply({ status: 503, json: { error: 'first' } }, { reset: true }, { status: 429, json: { error: 'last' } }, ok);
    const { transport, delays } = transportFor(stub, { retry: { retries: 2 } });
    const error = await rejectionOf(transport.request({ method: 'GET', path: 'a' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ serviceMessage: 'last' });
    expect(stub.requests).toHaveLength(3);
    expect(stub.pending).toBe(1);
    expect(delays).toHaveLength(2);
  });

  it('ends with a NetworkError when the last attempt is a reset', async () => {
    stub.reply({ status: 500 }, { reset: true });
    const error = await rejectionOf(transportFor(stub, { retry: { retries: 1 } }).transport.request({ method: 'GET', path: 'a' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: false, method: 'GET', url: `${stub.url}/a` });
  });

  it('ends with an ApiError when every attempt is a 5xx', async () => {
    stub.handle(() => ({ status: 500, json: { error: 'down' } }));
    const error = await rejectionOf(transportFor(stub).transport.request({ method: 'GET', path: 'a' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 500, serviceMessage: 'down' });
    expect(stub.requests).toHaveLength(4); // default: 1 + 3 retries
  });

  it('stops retrying at the first non-retryable answer', async () => {
    stub.reply({ status: 503 }, { status: 404, json: { error: 'gone' } }, ok);
    const error = await rejectionOf(transportFor(stub).transport.request({ method: 'GET', path: 'a' }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(stub.requests).toHaveLength(2);
  });
});

describe('no retries where a retry is not safe', () => {
  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)('%s is sent once by default', async (method) => {
    stub.reply({ status: 503 }, ok);
    const error = await rejectionOf(transportFor(stub).transport.request({ method, path: 'a', body: 'x' }));
    expect(error).toMatchObject({ status: 503 });
    expect(stub.requests).toHaveLength(1);
  });

  it('a POST that gets a network reset is not sent again', async () => {
    stub.reply({ reset: true }, ok);
    const error = await rejectionOf(transportFor(stub).transport.request({ method: 'POST', path: 'a', json: {} }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(stub.requests).toHaveLength(1);
  });

  it('a GET marked retrySafe: false is sent once', async () => {
    stub.reply({ status: 429 }, ok);
    const { transport, delays } = transportFor(stub);
    await rejectionOf(transport.request({ method: 'GET', path: 'a', retrySafe: false }));
    expect(stub.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retry: false disables retries for every request', async () => {
    stub.reply({ status: 503 }, ok);
    await rejectionOf(transportFor(stub, { retry: false }).transport.request({ method: 'GET', path: 'a' }));
    expect(stub.requests).toHaveLength(1);
  });

  it('never retries a 400', async () => {
    stub.reply({ status: 400, json: { error: 'bad' } }, ok);
    await rejectionOf(transportFor(stub).transport.request({ method: 'POST', path: 'a', retrySafe: true }));
    expect(stub.requests).toHaveLength(1);
  });
});
