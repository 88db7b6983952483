import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { isPlainEnqueueResult } from '../../src/schemas/lazy';
import { enqueueResultSchema, parseResponse, urlGroupEnqueueResultSchema } from '../../src/schemas';
import { enqueueResult, enqueueResultDeduplicated, urlGroupEnqueueResult } from './fixtures';
import { URL, responseError } from './helpers';
import { fcParams } from '../reliability/fc-settings';

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

describe('isPlainEnqueueResult (the fast path in front of zod)', () => {
  const jsonValue = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.double(),
      fc.string(),
      fc.array(tie('value'), { maxLength: 3 }),
      tie('object'),
    ),
    object: fc.dictionary(fc.constantFrom('messageId', 'deduplicated', 'url', 'other', '__proto__'), tie('value'), { maxKeys: 4 }),
  })).value;
  const likely = fc.record(
    {
      messageId: fc.oneof(fc.string(), fc.integer()),
      deduplicated: fc.oneof(fc.boolean(), fc.constant('true')),
      url: fc.oneof(fc.string(), fc.constant(null)),
      extra: jsonValue,
    },
    { requiredKeys: [] },
  );

  it('accepts only what the schema accepts, and the schema returns it unchanged', () => {
    fc.assert(
      fc.property(fc.oneof(jsonValue, likely), (candidate) => {
        const value = JSON.parse(JSON.stringify(candidate) ?? 'null') as unknown;
        const parsed = enqueueResultSchema.safeParse(value);
        if (isPlainEnqueueResult(value)) {
          expect(parsed.success).toBe(true);
          expect(parsed.data).toEqual(value);
        }
        // Every plain answer the service sends takes the fast path.
        if (parsed.success && Object.keys(value as object).every((key) => ['messageId', 'deduplicated', 'url'].includes(key))) {
          expect(isPlainEnqueueResult(value)).toBe(true);
        }
      }),
      fcParams(500),
    );
  });

  it('leaves anything else to zod, whose error names the field', () => {
    expect(isPlainEnqueueResult({ messageId: 1 })).toBe(false);
    expect(isPlainEnqueueResult([{ messageId: 'm' }])).toBe(false);
    expect(isPlainEnqueueResult(JSON.parse('{"__proto__": false, "messageId": ""}'))).toBe(false);
    expect(responseError(enqueueResultSchema, { messageId: 1 }).field).toBe('messageId');
  });
});
