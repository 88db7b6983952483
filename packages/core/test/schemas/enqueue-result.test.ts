import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { enqueueResultSchema, parseResponse, urlGroupEnqueueResultSchema } from '../../src/schemas';
import { enqueueResult, enqueueResultDeduplicated, urlGroupEnqueueResult } from './fixtures';
import { URL, responseError } from './helpers';

describe('enqueueResultSchema', () => {
  it('parses a plain and a deduplicated answer', () => {
    expect(parseResponse(enqueueResultSchema, enqueueResult, URL)).toEqual(enqueueResult);
    expect(parseResponse(enqueueResultSchema, enqueueResultDeduplicated, URL).deduplicated).toBe(true);
  });

  it('keeps unknown keys', () => {
    expect(parseResponse(enqueueResultSchema, { ...enqueueResult, queue: 'orders' }, URL).queue).toBe('orders');
  });

  it('requires messageId', () => {
    const error = responseError(enqueueResultSchema, { deduplicated: false });
    expect(error.field).toBe('messageId');
  });

  it('refuses a deduplicated flag that is not a boolean', () => {
    const error = responseError(enqueueResultSchema, { ...enqueueResult, deduplicated: 'true' });
    expect(error.field).toBe('deduplicated');
    expect(error.message).toContain('expected boolean, got string');
  });
});

describe('urlGroupEnqueueResultSchema', () => {
  it('parses one element per endpoint', () => {
    expect(parseResponse(urlGroupEnqueueResultSchema, urlGroupEnqueueResult, URL)).toEqual(urlGroupEnqueueResult);
  });

  it('names the element that lacks a messageId', () => {
    expect(responseError(urlGroupEnqueueResultSchema, [urlGroupEnqueueResult[0], { url: 'https://a.example' }]).field).toBe('1.messageId');
  });
});

describe('either answer, for a destination of unknown kind', () => {
  const enqueueResponseSchema = z.union([enqueueResultSchema, urlGroupEnqueueResultSchema]);

  it('accepts either answer', () => {
    expect(parseResponse(enqueueResponseSchema, enqueueResult, URL)).toEqual(enqueueResult);
    expect(parseResponse(enqueueResponseSchema, urlGroupEnqueueResult, URL)).toEqual(urlGroupEnqueueResult);
  });

  it('reports the field of the shape the answer was closest to', () => {
    expect(responseError(enqueueResponseSchema, {}).field).toBe('messageId');
    expect(responseError(enqueueResponseSchema, [enqueueResult, { messageId: 7 }]).field).toBe('1.messageId');
  });
});
