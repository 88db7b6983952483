import { describe, expect, it } from 'vitest';
import { buildEnqueueHeaders } from '../../src/enqueue-headers';
import { headerNames } from '../../src/internal-protocol';
import { signRequest } from '../../src/testing';

describe('the protocol header table', () => {
  it('spells every name as the service does, for the configured prefix', () => {
    const names = headerNames('Upstash');
    expect(names.signature).toBe('Upstash-Signature');
    expect(names.delivery.retryDelay).toBe('Upstash-Retry-Delay');
    expect(names.callback).toMatchObject({
      url: 'Upstash-Callback',
      retries: 'Upstash-Callback-Retries',
      forwardPrefix: 'Upstash-Callback-Forward-',
    });
    expect(names.failureCallback.url).toBe('Upstash-Failure-Callback');
    expect(names.nonRetryableError).toBe('Upstash-NonRetryable-Error');
    expect(headerNames('Upstash')).toBe(names);
  });

  it('is what the sender writes and the testing helpers send', async () => {
    const names = headerNames('Service');
    const sent = buildEnqueueHeaders({
      retries: 2,
      delay: '10s',
      callback: { url: 'https://a.test/cb', retries: 1 },
      failureCallback: 'https://a.test/f',
      deduplicationId: 'd',
      label: 'l',
    });
    expect(Object.keys(sent).sort()).toEqual(
      [
        names.delivery.retries,
        names.delivery.delay,
        names.callback.url,
        names.callback.retries,
        names.failureCallback.url,
        names.deduplicationId,
        names.label,
      ].sort(),
    );
    const { headers } = await signRequest({ url: 'https://a.test/x', body: '', key: 'sig_k' });
    expect(Object.keys(headers)).toEqual(expect.arrayContaining([names.signature, names.messageId, names.retried]));
  });
});
