import { describe, expect, it } from 'vitest';
import { parseRateLimit, parseResetTime, retryAfterMs } from '../../src/http';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('parseRateLimit', () => {
  it('reads the daily family with reset in Unix seconds', () => {
    const headers = new Headers({ 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1767312000' });
    expect(parseRateLimit(headers, NOW)).toEqual({ kind: 'daily', limit: 1000, remaining: 0, reset: new Date('2026-01-02T00:00:00Z') });
  });

  it('reads the burst family with reset in Unix seconds', () => {
    const headers = new Headers({
      'Burst-RateLimit-Limit': '100',
      'Burst-RateLimit-Remaining': '0',
      'Burst-RateLimit-Reset': String(NOW / 1000 + 1),
    });
    expect(parseRateLimit(headers, NOW)).toEqual({ kind: 'burst', limit: 100, remaining: 0, reset: new Date(NOW + 1000) });
  });

  it('prefers the exhausted family when both are present', () => {
    const both = {
      'RateLimit-Limit': '1000',
      'RateLimit-Remaining': '500',
      'RateLimit-Reset': '1767312000',
      'Burst-RateLimit-Limit': '100',
      'Burst-RateLimit-Remaining': '0',
      'Burst-RateLimit-Reset': '1767268801',
    };
    expect(parseRateLimit(new Headers(both), NOW).kind).toBe('burst');
    expect(parseRateLimit(new Headers({ ...both, 'Burst-RateLimit-Remaining': '3', 'RateLimit-Remaining': '0' }), NOW).kind).toBe('daily');
    expect(parseRateLimit(new Headers({ ...both, 'Burst-RateLimit-Remaining': '3' }), NOW).kind).toBe('daily');
  });

  it('is unknown without headers, and ignores unreadable values', () => {
    expect(parseRateLimit(new Headers(), NOW)).toEqual({ kind: 'unknown' });
    expect(parseRateLimit(new Headers({ 'RateLimit-Limit': 'lots', 'RateLimit-Remaining': '', 'RateLimit-Reset': '-5' }), NOW)).toEqual({
      kind: 'unknown',
    });
    expect(parseRateLimit(new Headers({ 'RateLimit-Limit': '10', 'RateLimit-Reset': 'soon' }), NOW)).toEqual({ kind: 'daily', limit: 10 });
  });
});

describe('parseResetTime', () => {
  it('treats values below 1e9 as seconds from now', () => {
    expect(parseResetTime(30, NOW)).toEqual(new Date(NOW + 30_000));
    expect(parseResetTime(0, NOW)).toEqual(new Date(NOW));
  });

  it('treats 1e9..1e12 as Unix seconds and larger values as Unix milliseconds', () => {
    expect(parseResetTime(1_767_312_000, NOW)).toEqual(new Date('2026-01-02T00:00:00Z'));
    expect(parseResetTime(1_767_312_000_000, NOW)).toEqual(new Date('2026-01-02T00:00:00Z'));
  });
});

describe('retryAfterMs', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'Retry-After': '3' }), NOW)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'Retry-After': new Date(NOW + 5000).toUTCString() }), NOW)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'Retry-After': new Date(NOW - 5000).toUTCString() }), NOW)).toBe(0);
  });

  it('is undefined when absent or unreadable', () => {
    expect(retryAfterMs(new Headers(), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'Retry-After': 'later' }), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'Retry-After': '-1' }), NOW)).toBeUndefined();
  });
});
