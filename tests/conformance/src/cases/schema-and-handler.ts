import { NonRetryableError, RetryAfterError } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { ORDER } from '../fixtures';
import { expectAccepted, expectNoHandlerCalled, expectNonRetryable } from './support/expectations';
import type { Harness } from './support/harness';

/**
 * What the service is told after verification: retry (500, Retry-After), give up (489) or done (200).
 * Getting these wrong either loses messages or retries a hopeless one for a day.
 */
export function schemaAndHandlerCases(h: Harness): void {
  describe('schema and handler', () => {
    schemaCases(h);
    handlerCases(h);
  });
}

function schemaCases(h: Harness): void {
  it('gives the handler the schema output as body', async () => {
    expectAccepted(await h.deliver({ body: ORDER }));
    expect(h.received().body).toEqual(ORDER);
  });

  it('answers 489 non-retryable to a body that fails the schema, without calling the handler', async () => {
    const response = await h.deliver({ body: { orderId: 42, total: 'lots' } });
    expectNonRetryable(response, h);
    expectNoHandlerCalled(h);
    expect(h.stages()).toEqual(['schema']);
  });

  it('answers 489 non-retryable to invalid JSON, without calling the handler', async () => {
    const response = await h.deliver({ body: '{"orderId": "ord_1", "total": ', contentType: 'application/json' });
    expectNoHandlerCalled(h);
    if (h.target.quirks?.frameworkParsesJson) {
      // The app's own parser refused it before any route ran: its 400, and Mailroom never saw it.
      expect(response.status).toBe(400);
      return;
    }
    expectNonRetryable(response, h);
    expect(h.stages()).toEqual(['parse']);
  });
}

function handlerCases(h: Harness): void {
  it('answers 200 when the handler returns nothing', async () => {
    const response = await h.deliver({ body: ORDER });
    expectAccepted(response);
    expect(h.onError).not.toHaveBeenCalled();
  });

  it('sends a returned object as JSON', async () => {
    h.destination.mockReturnValue({ stored: true, id: 7 });
    const response = await h.deliver({ body: ORDER });
    expectAccepted(response);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(response.body)).toEqual({ stored: true, id: 7 });
  });

  it('waits for an async handler before answering', async () => {
    let finished = false;
    h.destination.mockImplementation(async () => {
      await Promise.resolve();
      await new Promise<void>((resolve) => setImmediate(resolve));
      finished = true;
    });
    expectAccepted(await h.deliver({ body: ORDER }));
    expect(finished).toBe(true);
  });

  it('answers 500 when the handler throws, so the service retries', async () => {
    h.destination.mockImplementation(() => {
      throw new Error('database unavailable');
    });
    const response = await h.deliver({ body: ORDER });
    expect(response.status).toBe(500);
    // The service keeps this answer as the DLQ entry's responseBody: a fixed JSON body, never the
    // error's message, a stack or a framework's HTML error page.
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toBe('{"error":"handler failed"}');
    expect(response.headers[`${h.headerPrefix.toLowerCase()}-nonretryable-error`]).toBeUndefined();
    // Reported once, through onError.
    expect(h.stages()).toEqual(['handler']);
  });

  it('answers 500 when an async handler rejects', async () => {
    h.destination.mockRejectedValue(new Error('database unavailable'));
    expect((await h.deliver({ body: ORDER })).status).toBe(500);
  });

  it('answers 489 non-retryable when the handler throws NonRetryableError', async () => {
    h.destination.mockRejectedValue(new NonRetryableError('order ord_1001 does not exist'));
    expectNonRetryable(await h.deliver({ body: ORDER }), h);
    expect(h.destination).toHaveBeenCalledOnce();
  });

  it('answers with Retry-After when the handler throws RetryAfterError(30)', async () => {
    const error = new RetryAfterError(30);
    h.destination.mockRejectedValue(error);
    const response = await h.deliver({ body: ORDER });
    expect(response.status).toBe(error.status);
    expect(response.headers['retry-after']).toBe('30');
  });
}
