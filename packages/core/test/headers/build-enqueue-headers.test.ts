import { describe, expect, it } from 'vitest';
import { buildEnqueueHeaders, parseDuration } from '../../src/enqueue-headers';
import { ValidationError } from '../../src/errors';

describe('buildEnqueueHeaders', () => {
  it('produces nothing for no options', () => {
    expect(buildEnqueueHeaders()).toEqual({});
    expect(buildEnqueueHeaders({})).toEqual({});
  });

  it('covers every header of the enqueue endpoint', () => {
    const headers = buildEnqueueHeaders({
      contentType: 'application/json',
      method: 'PUT',
      timeout: '30s',
      retries: 5,
      retryDelay: 'pow(2, retried) * 1000',
      delay: '1d10h30m',
      headers: { 'X-Tenant': 'acme', Authorization: 'Bearer app' },
      callback: {
        url: 'https://app.test/cb',
        retries: 1,
        timeout: 10,
        method: 'POST',
        delay: '5s',
        retryDelay: '1000',
        headers: { 'X-Cb': '1' },
      },
      failureCallback: { url: 'http://app.test/fail', retries: 2, headers: { 'X-Fail': 'yes' } },
      deduplicationId: 'order-42',
      contentBasedDeduplication: true,
      label: 'billing',
    });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'Service-Method': 'PUT',
      'Service-Timeout': '30s',
      'Service-Retries': '5',
      'Service-Retry-Delay': 'pow(2, retried) * 1000',
      'Service-Delay': '1d10h30m',
      'Service-Forward-X-Tenant': 'acme',
      'Service-Forward-Authorization': 'Bearer app',
      'Service-Callback': 'https://app.test/cb',
      'Service-Callback-Retries': '1',
      'Service-Callback-Timeout': '10s',
      'Service-Callback-Method': 'POST',
      'Service-Callback-Delay': '5s',
      'Service-Callback-Retry-Delay': '1000',
      'Service-Callback-Forward-X-Cb': '1',
      'Service-Failure-Callback': 'http://app.test/fail',
      'Service-Failure-Callback-Retries': '2',
      'Service-Failure-Callback-Forward-X-Fail': 'yes',
      'Service-Deduplication-Id': 'order-42',
      'Service-Content-Based-Deduplication': 'true',
      'Service-Label': 'billing',
    });
  });

  it('uses the configured prefix', () => {
    expect(buildEnqueueHeaders({ retries: 0, callback: 'https://a.test' }, { headerPrefix: 'Upstash' })).toEqual({
      'Upstash-Retries': '0',
      'Upstash-Callback': 'https://a.test',
    });
  });

  it('writes not-before as Unix seconds from a Date or a number', () => {
    expect(buildEnqueueHeaders({ notBefore: new Date('2026-01-01T00:00:00.900Z') })).toEqual({ 'Service-Not-Before': '1767225600' });
    expect(buildEnqueueHeaders({ notBefore: 1767225600 })).toEqual({ 'Service-Not-Before': '1767225600' });
  });

  it('marks a workflow step', () => {
    expect(buildEnqueueHeaders({ workflow: { runId: 'wfr_1', url: 'https://app.test/wf', createdAt: 1767225600000 } })).toEqual({
      'Service-Workflow-RunId': 'wfr_1',
      'Service-Workflow-Url': 'https://app.test/wf',
      'Service-Workflow-CreatedAt': '1767225600000',
    });
  });

  it('omits content-based deduplication when false', () => {
    expect(buildEnqueueHeaders({ contentBasedDeduplication: false })).toEqual({});
  });

  it('accepts Headers objects for forwarded headers', () => {
    expect(buildEnqueueHeaders({ headers: new Headers({ 'X-A': '1' }) })).toEqual({ 'Service-Forward-x-a': '1' });
  });

  it('accepts a compiled retry-delay expression', async () => {
    const { parseRetryDelay } = await import('../../src/retry-delay');
    expect(buildEnqueueHeaders({ retryDelay: parseRetryDelay('1000 * (1 + retried)') })).toEqual({
      'Service-Retry-Delay': '1000 * (1 + retried)',
    });
  });

  const bad: Array<[string, unknown, string]> = [
    ['callback without scheme', { callback: 'app.test/cb' }, 'callback'],
    ['callback url without scheme', { callback: { url: 'ftp://x' } }, 'callback.url'],
    ['failure callback without scheme', { failureCallback: 'www.x.test' }, 'failureCallback'],
    ['negative retries', { retries: -1 }, 'retries'],
    ['fractional retries', { retries: 1.5 }, 'retries'],
    ['string retries', { retries: '3' }, 'retries'],
    ['negative callback retries', { callback: { url: 'https://a.test', retries: -2 } }, 'callback.retries'],
    ['malformed delay', { delay: '10 minutes' }, 'delay'],
    ['units out of order', { delay: '30m1h' }, 'delay'],
    ['repeated unit', { delay: '1h1h' }, 'delay'],
    ['day timeout', { timeout: '1d' }, 'timeout'],
    ['negative delay', { delay: -5 }, 'delay'],
    ['empty delay', { delay: '' }, 'delay'],
    ['invalid retry delay', { retryDelay: 'pow(2, retry)' }, 'retryDelay'],
    ['invalid callback retry delay', { callback: { url: 'https://a.test', retryDelay: '1000 +' } }, 'retryDelay'],
    ['CRLF in forwarded value', { headers: { 'X-A': 'a\r\nX-Evil: 1' } }, 'headers.X-A'],
    ['LF in forwarded value', { headers: { 'X-A': 'a\nb' } }, 'headers.X-A'],
    ['CRLF in forwarded name', { headers: { 'X-A\r\nEvil': 'a' } }, 'headers.X-A\r\nEvil'],
    ['space in forwarded name', { headers: { 'X A': 'a' } }, 'headers.X A'],
    ['non-string forwarded value', { headers: { 'X-A': 1 } }, 'headers.X-A'],
    ['duplicate forwarded name', { headers: { 'X-A': '1', 'x-a': '2' } }, 'headers.x-a'],
    ['CRLF in deduplication id', { deduplicationId: 'a\r\nb' }, 'deduplicationId'],
    ['empty deduplication id', { deduplicationId: '' }, 'deduplicationId'],
    ['CRLF in label', { label: 'x\ny' }, 'label'],
    ['CRLF in content type', { contentType: 'text/plain\r\nX: y' }, 'contentType'],
    ['unknown method', { method: 'FETCH' }, 'method'],
    ['lower-case method', { method: 'post' }, 'method'],
    ['delay and notBefore together', { delay: '1m', notBefore: 1767225600 }, 'notBefore'],
    ['notBefore in milliseconds', { notBefore: 1767225600000 }, 'notBefore'],
    ['invalid notBefore', { notBefore: 'tomorrow' }, 'notBefore'],
    ['non-boolean content dedup', { contentBasedDeduplication: 'yes' }, 'contentBasedDeduplication'],
    ['unknown option (typo)', { retry: 3 }, 'retry'],
    ['unknown callback option', { callback: { url: 'https://a.test', retry: 3 } }, 'callback.retry'],
    ['headers as array', { headers: [['X-A', '1']] }, 'headers'],
    ['a workflow without run id', { workflow: { url: 'https://a.test' } }, 'workflow.runId'],
    ['a workflow url without scheme', { workflow: { runId: 'wfr_1', url: 'a.test' } }, 'workflow.url'],
    [
      'a workflow createdAt in seconds as string',
      { workflow: { runId: 'wfr_1', url: 'https://a.test', createdAt: '1' } },
      'workflow.createdAt',
    ],
    ['an unknown workflow key', { workflow: { runId: 'wfr_1', url: 'https://a.test', id: 1 } }, 'workflow.id'],
  ];
  it.each(bad)('refuses %s with a ValidationError naming the option', (_name, options, path) => {
    try {
      buildEnqueueHeaders(options as never);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe(path);
    }
  });

  it('refuses options that are not an object', () => {
    expect(() => buildEnqueueHeaders(null as never)).toThrow(ValidationError);
    expect(() => buildEnqueueHeaders('retries=3' as never)).toThrow(ValidationError);
  });

  it('refuses an invalid prefix', () => {
    expect(() => buildEnqueueHeaders({}, { headerPrefix: 'Bad Prefix' })).toThrow(/header prefix/);
  });
});

describe('parseDuration', () => {
  it.each([
    ['30s', 30],
    ['5m', 300],
    ['2h', 7200],
    ['1d', 86400],
    ['1d10h30m', 124200],
    ['1h0m5s', 3605],
    [45, 45],
  ] as const)('%j is %d seconds', (input, seconds) => {
    expect(parseDuration('d', input)).toBe(seconds);
  });
  it.each(['s', '10', '1.5h', '1H', ' 1h', '1h ', '1w', '-1s', 'h1', '99999999999999999999d'])('refuses %j', (input) => {
    expect(() => parseDuration('d', input)).toThrow(ValidationError);
  });
});
