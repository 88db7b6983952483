import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { authorizationHeader, base64Utf8, createRequester } from '../../src/http';
import type { RequesterAuth } from '../../src/http';
import { startStubServer, type StubServer } from '../support/stub-server';

describe('authorizationHeader', () => {
  it('builds a Bearer header', () => {
    expect(authorizationHeader({ kind: 'bearer', token: 'eyJ.abc=' })).toBe('Bearer eyJ.abc=');
  });

  it('builds a Basic header over the UTF-8 bytes of user:password', () => {
    expect(authorizationHeader({ kind: 'basic', user: 'me@x.io', password: 'k' })).toBe(
      `Basic ${Buffer.from('me@x.io:k').toString('base64')}`,
    );
    expect(authorizationHeader({ kind: 'basic', user: 'zoë@exämple.io', password: 'pä:ss€' })).toBe(
      `Basic ${Buffer.from('zoë@exämple.io:pä:ss€', 'utf8').toString('base64')}`,
    );
  });

  it('base64-encodes UTF-8 without node:buffer', () => {
    expect(base64Utf8('é')).toBe('w6k=');
    expect(base64Utf8('😀')).toBe(Buffer.from('😀').toString('base64'));
    expect(base64Utf8('')).toBe('');
  });

  it.each([
    [{ kind: 'bearer', token: '' }, 'auth.token', 'MAILROOM_TOKEN'],
    [{ kind: 'bearer' }, 'auth.token', 'is required'],
    [{ kind: 'bearer', token: 'tok\n' }, 'auth.token', 'whitespace'],
    [{ kind: 'bearer', token: 'to ken' }, 'auth.token', 'printable ASCII'],
    [{ kind: 'bearer', token: 'tökén' }, 'auth.token', 'printable ASCII'],
    [{ kind: 'basic', user: '', password: 'p' }, 'auth.user', 'MAILROOM_MANAGEMENT_USER'],
    [{ kind: 'basic', user: 'u', password: '' }, 'auth.password', 'MAILROOM_MANAGEMENT_PASSWORD'],
    [{ kind: 'basic', user: 'a:b', password: 'p' }, 'auth.user', 'must not contain ":"'],
    [{ kind: 'digest' }, 'auth.kind', "'bearer' or 'basic'"],
    [null, 'auth', 'expected'],
  ])('rejects %j', (auth, path, message) => {
    const attempt = (): string => authorizationHeader(auth as RequesterAuth);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(message);
    expect(() => createRequester({ baseUrl: 'http://h', auth: auth as RequesterAuth })).toThrow(`${path}:`);
  });
});

describe('auth on the wire', () => {
  let stub: StubServer;
  beforeEach(async () => {
    stub = await startStubServer({ handler: () => ({ status: 200 }) });
  });
  afterEach(() => stub.close());

  it('sends the Bearer token', async () => {
    await createRequester({ baseUrl: stub.url, auth: { kind: 'bearer', token: 'tok_123' } }).request({ method: 'GET', path: 'v2/topics' });
    expect(stub.requests[0]?.headers.authorization).toBe('Bearer tok_123');
  });

  it('sends Basic credentials the server decodes back to the UTF-8 user and password', async () => {
    const auth = { kind: 'basic', user: 'zoë@exämple.io', password: 'kéy:with:colons' } as const;
    await createRequester({ baseUrl: stub.url, auth }).request({ method: 'GET', path: ['v2', 'messaging', 'users'] });
    const header = stub.requests[0]?.headers.authorization ?? '';
    expect(header.startsWith('Basic ')).toBe(true);
    expect(Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8')).toBe('zoë@exämple.io:kéy:with:colons');
  });

  it('never lets a caller header replace the configured credentials', async () => {
    await createRequester({ baseUrl: stub.url, auth: { kind: 'bearer', token: 'mine' } }).request({
      method: 'GET',
      path: 'x',
      headers: { Authorization: 'Bearer someone-else' },
    });
    expect(stub.requests[0]?.headers.authorization).toBe('Bearer mine');
  });
});
