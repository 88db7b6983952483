import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { buildQueryString, encodePath, joinUrl } from '../../src/http';

describe('joinUrl', () => {
  it.each([
    ['http://h/v2', 'messaging/users', 'http://h/v2/messaging/users'],
    ['http://h/v2/', '/messaging/users', 'http://h/v2/messaging/users'],
    ['http://h/v2', '/messaging/users', 'http://h/v2/messaging/users'],
    ['http://h/v2/', 'messaging/users/', 'http://h/v2/messaging/users'],
    ['http://h', 'v2/topics', 'http://h/v2/topics'],
    ['http://h/', '/v2/topics', 'http://h/v2/topics'],
    ['http://h/base/', 'v2//topics', 'http://h/base/v2/topics'],
    ['http://h:8288/base', ['v2', 'topics'], 'http://h:8288/base/v2/topics'],
    ['http://h/base/', ['v2', 'topics', 'a b'], 'http://h/base/v2/topics/a%20b'],
    ['http://h/v2', [], 'http://h/v2'],
    ['http://h/v2/', '', 'http://h/v2'],
  ] as const)('%s + %j -> %s', (base, path, expected) => {
    expect(joinUrl(base, path)).toBe(expected);
  });
});

describe('encodePath', () => {
  it('percent-encodes every raw segment so a name cannot leave its segment', () => {
    expect(encodePath(['v2', 'topics', 'a/b?c#d%e', 'endpoints'])).toBe('v2/topics/a%2Fb%3Fc%23d%25e/endpoints');
    expect(encodePath(['dlq', 'café ü'])).toBe('dlq/caf%C3%A9%20%C3%BC');
    // Unreserved names pass unchanged, whether or not they take the shortcut (a leading '.' does not).
    expect(encodePath(['a.b', '~x', '-_', '...', '.env'])).toBe('a.b/~x/-_/.../.env');
  });

  it('keeps a pre-built string path as written', () => {
    expect(encodePath('/v2/workflows/dlq/')).toBe('v2/workflows/dlq');
    expect(encodePath('v2/a%20b')).toBe('v2/a%20b');
  });

  it.each([
    [['v2', ''], 'path[1]', 'empty'],
    [['v2', '..'], 'path[1]', '".."'],
    [['.'], 'path[0]', '"."'],
    [['%2e%2E'], 'path[0]', '".."'],
    [['v2', 3 as unknown as string], 'path[1]', 'must be a string'],
    [['\ud800'], 'path[0]', 'not valid Unicode'],
    ['v2/../admin', 'path', '".."'],
    ['v2/topics?x=1', 'path', '"?"'],
    ['v2#frag', 'path', '"#"'],
    [42 as unknown as string, 'path', 'expected an array'],
  ] as const)('rejects %j', (path, where, message) => {
    const attempt = (): string => encodePath(path as string | string[]);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).path).toBe(where);
    }
  });
});

describe('buildQueryString', () => {
  it('skips undefined, formats numbers and booleans, encodes names and values with %20', () => {
    expect(buildQueryString({ cursor: 'a b&c=d', count: 10, flag: false, topicName: undefined, 'we ird': 'é' })).toBe(
      '?cursor=a%20b%26c%3Dd&count=10&flag=false&we%20ird=%C3%A9',
    );
  });

  it('repeats the name for each value of a list, as the service reads multi-valued filters', () => {
    expect(buildQueryString({ dlqIds: ['a', 'b c'], count: 2 })).toBe('?dlqIds=a&dlqIds=b%20c&count=2');
  });

  it('is empty when nothing is left', () => {
    expect(buildQueryString(undefined)).toBe('');
    expect(buildQueryString({})).toBe('');
    expect(buildQueryString({ a: undefined })).toBe('');
  });

  it.each([
    [{ n: Number.NaN }, 'query.n: must be a finite number'],
    [{ n: Infinity }, 'query.n: must be a finite number'],
    [{ n: null }, 'got null'],
    [{ n: [{}] }, 'got object'],
    [{ n: [Number.NaN] }, 'query.n: must be a finite number'],
    [{ n: '\udc00' }, 'lone surrogate'],
    [[] as unknown, 'expected an object'],
  ])('rejects %j', (query, message) => {
    expect(() => buildQueryString(query as Record<string, string>)).toThrow(ValidationError);
    expect(() => buildQueryString(query as Record<string, string>)).toThrow(message);
  });
});
