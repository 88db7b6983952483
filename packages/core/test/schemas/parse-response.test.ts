import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MailroomError } from '../../src/errors';
import { ResponseValidationError } from '../../src/errors';
import { describeFirstIssue, dlqListResponseSchema, parseResponse, urlGroupEnqueueResultSchema } from '../../src/schemas';
import { dlqPageWithCursor } from './fixtures';
import { URL, copy, responseError } from './helpers';

describe('parseResponse', () => {
  it('returns the parsed value with transforms applied', () => {
    const page = parseResponse(dlqListResponseSchema, { cursor: '', messages: null }, URL);
    expect(page).toEqual({ cursor: undefined, messages: [] });
  });

  it('throws a ResponseValidationError carrying the field, the url and a readable message', () => {
    const body = copy(dlqPageWithCursor) as { messages: Record<string, unknown>[] };
    delete body.messages[1]!.dlqId;
    const error = responseError(dlqListResponseSchema, body);
    expect(error).toBeInstanceOf(MailroomError);
    expect(error.code).toBe('RESPONSE_SHAPE');
    expect(error.field).toBe('messages.1.dlqId');
    expect(error.url).toBe(URL);
    expect(error.message).toBe(`Unexpected response from ${URL}: field "messages.1.dlqId" is missing (expected string)`);
  });

  it('names only the first offending field', () => {
    const error = responseError(z.looseObject({ a: z.string(), b: z.number() }), { a: 1, b: 'x' });
    expect(error.field).toBe('a');
    expect(error.message).toContain('expected string, got number');
    expect(error.message).not.toContain('"b"');
  });

  it('reports a wrong root as (root)', () => {
    const error = responseError(urlGroupEnqueueResultSchema, { messageId: 'msg_1' });
    expect(error.field).toBe('');
    expect(error.message).toContain('field "(root)" expected array, got object');
  });

  it.each([
    [null, 'null'],
    [[], 'array'],
    ['text', 'string'],
    [true, 'boolean'],
  ])('describes %j as %s', (value, kind) => {
    expect(responseError(z.looseObject({ a: z.number() }), { a: value }).message).toContain(`expected number, got ${kind}`);
  });

  it('throws for a body that is not an object at all', () => {
    expect(() => parseResponse(dlqListResponseSchema, undefined, URL)).toThrow(ResponseValidationError);
    expect(() => parseResponse(dlqListResponseSchema, 'Bad Gateway', URL)).toThrow('expected object, got string');
  });
});

describe('describeFirstIssue', () => {
  const strictInput = z.strictObject({ name: z.string(), region: z.enum(['eu-west-1', 'us-central1']), type: z.string() });

  it('lists the allowed values of a strict enum', () => {
    const result = strictInput.safeParse({ name: 'a', region: 'us-east-1', type: 'payg' }, { reportInput: true });
    expect(result.success).toBe(false);
    expect(describeFirstIssue(result.error!.issues)).toEqual({
      field: 'region',
      reason: 'expected "eu-west-1" or "us-central1", got "us-east-1"',
    });
  });

  it('names unexpected keys of a strict object', () => {
    const result = strictInput.safeParse({ name: 'a', region: 'eu-west-1', type: 'free', plan: 'x' });
    expect(describeFirstIssue(result.error!.issues)).toEqual({ field: '', reason: 'has unexpected key "plan"' });
  });

  it('follows the union branch that got furthest', () => {
    const schema = z.union([z.looseObject({ id: z.string() }), z.array(z.looseObject({ id: z.string() }))]);
    expect(describeFirstIssue(schema.safeParse([{ id: 1 }], { reportInput: true }).error!.issues)).toEqual({
      field: '0.id',
      reason: 'expected string, got number',
    });
  });

  it('copes with an empty list', () => {
    expect(describeFirstIssue([])).toEqual({ field: '', reason: 'is invalid' });
  });
});
