import { describe, expect, it } from 'vitest';
import { buildEnqueueHeaders } from '../../src/enqueue-headers';
import { forwardedHeaders } from '../../src/receive/delivery-headers';

describe('forwardedHeaders', () => {
  it('strips the forward prefix and drops every service header', () => {
    expect(
      forwardedHeaders({
        'Service-Forward-X-Tenant': 'acme',
        'Service-Retries': '3',
        'Service-Callback': 'https://a.test',
        'Service-Callback-Forward-X-Cb': 'cb',
        'Service-Failure-Callback-Forward-X-F': 'f',
        'Content-Type': 'application/json',
      }),
    ).toEqual({ 'x-tenant': 'acme' });
  });

  it('matches the prefix in any letter case', () => {
    expect(forwardedHeaders({ 'service-forward-a': '1', 'SERVICE-FORWARD-B': '2' })).toEqual({ a: '1', b: '2' });
  });

  it('reads Web Headers and Node header records with arrays', () => {
    expect(forwardedHeaders(new Headers({ 'Upstash-Forward-X': 'y' }), { headerPrefix: 'Upstash' })).toEqual({ x: 'y' });
    expect(forwardedHeaders({ 'service-forward-x': ['a', 'b'], 'service-forward-y': undefined })).toEqual({ x: 'a, b' });
  });

  it('ignores other prefixes and an empty name', () => {
    expect(forwardedHeaders({ 'Upstash-Forward-X': '1', 'Service-Forward-': 'v' })).toEqual({});
  });

  it('inverts buildEnqueueHeaders for the destination', () => {
    const sent = buildEnqueueHeaders(
      { headers: { 'X-One': '1', 'X-Two': 'two words' }, callback: { url: 'https://a.test', headers: { 'X-Cb': 'no' } }, retries: 2 },
      { headerPrefix: 'Upstash' },
    );
    expect(forwardedHeaders(sent, { headerPrefix: 'Upstash' })).toEqual({ 'x-one': '1', 'x-two': 'two words' });
  });
});
