import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  callbackBodySchema,
  failureCallbackBodySchema,
  parseResponse,
  type CallbackBody,
  type FailureCallbackBody,
} from '../../src/schemas';
import { callbackBody, callbackBodyRetrying, failureCallbackBody, workflowFailureCallbackBody } from './fixtures';
import { URL, responseError } from './helpers';

describe('callbackBodySchema', () => {
  it('parses the documented example: string timestamps become numbers, string header values arrays', () => {
    const body = parseResponse(callbackBodySchema, callbackBody, URL);
    expect(body.createdAt).toBe(1_760_441_585_757);
    expect(body.notBefore).toBe(1_760_441_585_000);
    expect(body.sourceHeader).toEqual({ 'Content-Type': ['application/json'], 'X-Tenant': ['acme'] });
    expect(body.header).toEqual(callbackBody.header);
    expect(body.status).toBe(200);
    expect(body.scheduleId).toBe('scd_7Fg2hJ9kL1mN3pQ5rS8tU0vW');
  });

  it('parses numeric timestamps and array header values unchanged', () => {
    expect(parseResponse(callbackBodySchema, callbackBodyRetrying, URL)).toEqual(callbackBodyRetrying);
  });

  it('keeps unknown fields', () => {
    expect(parseResponse(callbackBodySchema, { ...callbackBody, queueName: 'orders' }, URL).queueName).toBe('orders');
  });

  it('needs only sourceMessageId, so a sparse callback still reaches the handler', () => {
    expect(parseResponse(callbackBodySchema, { sourceMessageId: 'msg_1', retried: 0 }, URL)).toEqual({
      sourceMessageId: 'msg_1',
      retried: 0,
    });
  });

  it('requires sourceMessageId', () => {
    const { sourceMessageId: _id, ...rest } = callbackBody;
    const error = responseError(callbackBodySchema, rest);
    expect(error.field).toBe('sourceMessageId');
    expect(error.message).toContain('is missing (expected string)');
  });

  it('names a wrong type', () => {
    expect(responseError(callbackBodySchema, { ...callbackBody, status: '200' }).field).toBe('status');
    expect(responseError(callbackBodySchema, { ...callbackBody, retried: null }).field).toBe('retried');
  });

  it('names the header whose value is neither a string nor an array', () => {
    const error = responseError(callbackBodySchema, { ...callbackBody, header: { 'Content-Length': 17 } });
    expect(error.field).toBe('header.Content-Length');
    expect(error.message).toContain('expected array or string, got number');
  });

  it('refuses a timestamp string that is not numeric', () => {
    const error = responseError(callbackBodySchema, { ...callbackBody, createdAt: '2025-10-14T11:33:05Z' });
    expect(error.field).toBe('createdAt');
    expect(error.message).toContain('numeric string');
  });

  it('types the normalised shapes', () => {
    expectTypeOf<CallbackBody['createdAt']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CallbackBody['sourceHeader']>().toEqualTypeOf<Record<string, string[]> | undefined>();
  });
});

describe('failureCallbackBodySchema', () => {
  it('parses the failure callback of a message with its dlqId', () => {
    const body = parseResponse(failureCallbackBodySchema, failureCallbackBody, URL);
    expect(body.dlqId).toBe('1760441600000-0');
    expect(body.retried).toBe(body.maxRetries);
  });

  it('parses the failure callback of a workflow run, with a string workflowCreatedAt', () => {
    const body = parseResponse(failureCallbackBodySchema, workflowFailureCallbackBody, URL);
    expect(body.workflowRunId).toBe('wfr_QXBwbGVQaWU3NzE4');
    expect(body.workflowCreatedAt).toBe(1_760_441_525_001);
  });

  it('requires dlqId, which the service always sends (the handler types it as a string)', () => {
    const { dlqId: _dlqId, ...rest } = failureCallbackBody;
    expect(responseError(failureCallbackBodySchema, rest).field).toBe('dlqId');
    expectTypeOf<FailureCallbackBody['dlqId']>().toEqualTypeOf<string>();
  });

  it('requires sourceMessageId and names wrong types', () => {
    const { sourceMessageId: _id, ...rest } = failureCallbackBody;
    expect(responseError(failureCallbackBodySchema, rest).field).toBe('sourceMessageId');
    expect(responseError(failureCallbackBodySchema, { ...failureCallbackBody, dlqId: 5 }).field).toBe('dlqId');
  });
});
