import { describe, expect, it } from 'vitest';
import { ORDER } from '../fixtures';
import { expectAccepted, expectNoHandlerCalled, expectNonRetryable, expectSignatureRefused } from './support/expectations';
import { useTarget, type Harness } from './support/harness';
import type { ConformanceTarget } from '../target';

/** The service's headers, in any letter case and under any vendor prefix, and the forwarded ones. */
export function headerCases(main: Harness, target: ConformanceTarget): void {
  describe('headers', () => {
    caseCases(main);
    serviceHeaderCases(main);
    forwardedCases(main);
  });
  describe('headerPrefix Upstash', () => upstashCases(target));
}

/** Every header name in upper case, as some proxies and HTTP/1 clients send them. */
function upperCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
}

function caseCases(h: Harness): void {
  it('reads header names in any letter case (SERVICE-SIGNATURE)', async () => {
    const response = await h.deliver({ body: ORDER, messageId: 'msg_upper', editHeaders: upperCased });
    expectAccepted(response);
    expect(h.received().messageId).toBe('msg_upper');
    expect(h.received().body).toEqual(ORDER);
  });

  it('reads header names in lower case (service-signature)', async () => {
    const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v]));
    expectAccepted(await h.deliver({ body: ORDER, messageId: 'msg_lower', editHeaders: lower }));
    expect(h.received().messageId).toBe('msg_lower');
  });
}

function serviceHeaderCases(h: Harness): void {
  it('exposes the service headers: messageId, retried, topicName, scheduleId, callerIp', async () => {
    const p = h.headerPrefix;
    const response = await h.deliver({
      body: ORDER,
      messageId: 'msg_2XkPz',
      retried: 2,
      headers: { [`${p}-Topic-Name`]: 'orders', [`${p}-Schedule-Id`]: 'scd_9', [`${p}-Caller-Ip`]: '198.51.100.4' },
    });
    expectAccepted(response);
    expect(h.received()).toMatchObject({
      messageId: 'msg_2XkPz',
      retried: 2,
      topicName: 'orders',
      scheduleId: 'scd_9',
      callerIp: '198.51.100.4',
    });
  });

  it('reads retried as 0 on a first attempt', async () => {
    expectAccepted(await h.deliver({ body: ORDER }));
    expect(h.received().retried).toBe(0);
  });
}

function forwardedCases(h: Harness): void {
  it('gives forwarded headers under their own names, without the service headers', async () => {
    const p = h.headerPrefix;
    const response = await h.deliver({
      body: ORDER,
      // As delivered (`X-Tenant`) and still prefixed (`<P>-Forward-Trace-Id`): both reach the handler unprefixed.
      headers: { 'X-Tenant': 'acme', [`${p}-Forward-Trace-Id`]: 'trace-77' },
    });
    expectAccepted(response);
    const forwarded = h.received().forwardedHeaders;
    expect(forwarded).toMatchObject({ 'x-tenant': 'acme', 'trace-id': 'trace-77' });
    const prefix = `${p.toLowerCase()}-`;
    expect(Object.keys(forwarded).filter((name) => name.startsWith(prefix))).toEqual([]);
    expect(forwarded).not.toHaveProperty('content-type');
    expect(forwarded).not.toHaveProperty('content-length');
    expect(h.received().headers[`${prefix}signature`]).toBeDefined();
  });
}

function upstashCases(target: ConformanceTarget): void {
  // The real service's prefix and issuer: with them configured, the default `Service-` means nothing.
  const h = useTarget(target, { name: 'headerPrefix Upstash', options: { headerPrefix: 'Upstash', issuer: 'Upstash' } });

  it('accepts a delivery with Upstash-* headers and reads them', async () => {
    const response = await h.deliver({
      body: ORDER,
      messageId: 'msg_upstash',
      retried: 1,
      headers: { 'Upstash-Forward-X-Tenant': 'acme' },
    });
    expectAccepted(response);
    expect(h.received()).toMatchObject({ messageId: 'msg_upstash', retried: 1, body: ORDER });
    expect(h.received().forwardedHeaders).toMatchObject({ 'x-tenant': 'acme' });
    expect(Object.keys(h.received().forwardedHeaders).filter((name) => name.startsWith('upstash-'))).toEqual([]);
  });

  it('ignores a signature under the default Service- prefix', async () => {
    const rename = (headers: Record<string, string>) =>
      Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.replace(/^Upstash-/i, 'Service-'), value]));
    expectSignatureRefused(await h.deliver({ body: ORDER, editHeaders: rename }), h, 'missing');
  });

  it('marks a schema failure with Upstash-NonRetryable-Error', async () => {
    const response = await h.deliver({ body: { orderId: 42 } });
    expectNonRetryable(response, h);
    expect(response.headers['service-nonretryable-error']).toBeUndefined();
    expectNoHandlerCalled(h);
  });
}
