import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { createRequester } from '../../src/http';
import type { RequesterOptions } from '../../src/http';

const auth = { kind: 'bearer', token: 't' } as const;

describe('createRequester options', () => {
  it('accepts the minimal options', () => {
    expect(createRequester({ baseUrl: 'https://service.example/v2/', auth })).toHaveProperty('request');
  });

  it.each([
    ['baseUrl', { baseUrl: '' }, 'baseUrl: is required'],
    ['baseUrl', { baseUrl: undefined }, 'baseUrl: is required'],
    ['baseUrl', { baseUrl: 'service.example' }, 'is not an absolute URL'],
    ['baseUrl', { baseUrl: '/v2' }, 'is not an absolute URL'],
    ['baseUrl', { baseUrl: 'ftp://h' }, 'must start with http:// or https://'],
    ['baseUrl', { baseUrl: 'http://h/v2?x=1' }, 'must not carry a query or fragment'],
    ['baseUrl', { baseUrl: 'http://h/v2?' }, 'must not carry a query or fragment'],
    ['baseUrl', { baseUrl: 'http://h/#top' }, 'must not carry a query or fragment'],
    ['baseUrl', { baseUrl: 'http://u:p@h' }, 'must not contain credentials'],
    ['auth', { auth: undefined }, 'auth: expected'],
    ['auth.token', { auth: { kind: 'bearer', token: '' } }, 'is required'],
    ['fetch', { fetch: 'fetch' }, 'must be a function'],
    ['timeoutMs', { timeoutMs: 0 }, 'from 1 to'],
    ['timeoutMs', { timeoutMs: -5 }, 'from 1 to'],
    ['timeoutMs', { timeoutMs: Number.NaN }, 'from 1 to'],
    ['timeoutMs', { timeoutMs: 3_000_000_000 }, 'from 1 to 2147483647'],
    ['timeoutMs', { timeoutMs: '100' }, 'from 1 to'],
    ['retry', { retry: true }, 'must be false or'],
    ['retry', { retry: null }, 'must be false or'],
    ['retry.retries', { retry: { retries: -1 } }, 'whole number >= 0'],
    ['retry.retries', { retry: { retries: 1.5 } }, 'whole number >= 0'],
    ['retry.baseDelayMs', { retry: { baseDelayMs: -1 } }, 'from 0 to'],
    ['retry.maxDelayMs', { retry: { maxDelayMs: Infinity } }, 'from 0 to'],
    ['retry.maxDelayMs', { retry: { baseDelayMs: 1000, maxDelayMs: 10 } }, 'must be >= retry.baseDelayMs (1000)'],
    ['userAgent', { userAgent: '' }, 'non-empty'],
    ['userAgent', { userAgent: 'app\r\nX-Evil: 1' }, 'without control characters'],
    ['userAgent', { userAgent: 'app ✓' }, 'Latin-1'],
    ['sleep', { sleep: 10 }, 'must be a function'],
    ['random', { random: 0.5 }, 'must be a function'],
    ['now', { now: Date.now() }, 'must be a function'],
  ])('%s: rejects %j', (path, override, message) => {
    let caught: unknown;
    try {
      createRequester({ baseUrl: 'http://h', auth, ...override } as unknown as RequesterOptions);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect(caught).toMatchObject({ path });
    expect((caught as Error).message).toContain(message);
  });

  it('rejects a missing options object', () => {
    expect(() => createRequester(undefined as unknown as RequesterOptions)).toThrow(ValidationError);
  });

  it('a baseDelayMs above the default max raises the max with it', () => {
    expect(() => createRequester({ baseUrl: 'http://h', auth, retry: { baseDelayMs: 20_000 } })).not.toThrow();
  });
});
