import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  FAILURE_CALLBACK_STATES,
  dlqListResponseSchema,
  dlqWorkflowMessageSchema,
  parseResponse,
  retriggerResponseSchema,
  type DlqWorkflowMessage,
} from '../../src/schemas';
import {
  dlqPageEmpty,
  dlqPageEmptyCursor,
  dlqPageNoCursor,
  dlqPageWithCursor,
  dlqWorkflowMessageBinary,
  dlqWorkflowMessageFull,
  dlqWorkflowMessageSparse,
  retriggerResponse,
  retriggerResponseStringTimestamp,
} from './fixtures';
import { URL, copy, responseError } from './helpers';

describe('dlqWorkflowMessageSchema', () => {
  it('parses an entry with every documented field and the extras unchanged', () => {
    expect(parseResponse(dlqWorkflowMessageSchema, dlqWorkflowMessageFull, URL)).toEqual(dlqWorkflowMessageFull);
  });

  it('parses an entry with base64 bodies', () => {
    const entry = parseResponse(dlqWorkflowMessageSchema, dlqWorkflowMessageBinary, URL);
    expect(entry.bodyBase64).toBe('eyJvcmRlcklkIjo0Miwic3RhdHVzIjoicGFpZCJ9');
    expect(entry.responseBodyBase64).toBeDefined();
    expect(entry.failureCallbackInfo?.state).toBe('CALLBACK_SUCCESS');
  });

  it('accepts a sparse entry and turns a numeric-string workflowCreatedAt into a number', () => {
    const entry = parseResponse(dlqWorkflowMessageSchema, dlqWorkflowMessageSparse, URL);
    expect(entry.workflowCreatedAt).toBe(1_760_439_989_500);
    expect(entry.responseStatus).toBeUndefined();
    expect(entry.failureCallbackInfo).toBeUndefined();
  });

  it('accepts numeric strings for createdAt and notBefore too', () => {
    const entry = parseResponse(dlqWorkflowMessageSchema, { ...dlqWorkflowMessageSparse, createdAt: '1760439990000', notBefore: '0' }, URL);
    expect([entry.createdAt, entry.notBefore]).toEqual([1_760_439_990_000, 0]);
  });

  it('needs only dlqId and messageId', () => {
    expect(parseResponse(dlqWorkflowMessageSchema, { dlqId: '1-0', messageId: 'msg_1' }, URL)).toEqual({
      dlqId: '1-0',
      messageId: 'msg_1',
    });
  });

  it.each(['dlqId', 'messageId'])('requires %s', (field) => {
    const entry: Record<string, unknown> = copy(dlqWorkflowMessageFull);
    delete entry[field];
    const error = responseError(dlqWorkflowMessageSchema, entry);
    expect(error.field).toBe(field);
    expect(error.message).toContain('is missing (expected string)');
  });

  it('keeps unknown keys, on the entry and on failureCallbackInfo', () => {
    const entry = parseResponse(
      dlqWorkflowMessageSchema,
      {
        ...dlqWorkflowMessageFull,
        queueName: 'checkout',
        failureCallbackInfo: { ...dlqWorkflowMessageFull.failureCallbackInfo, attempts: 2 },
      },
      URL,
    );
    expect(entry.queueName).toBe('checkout');
    expect(entry.failureCallbackInfo?.attempts).toBe(2);
  });

  it('accepts a failure callback state the service adds later', () => {
    const entry = parseResponse(
      dlqWorkflowMessageSchema,
      { ...dlqWorkflowMessageSparse, failureCallbackInfo: { state: 'CALLBACK_PAUSED' } },
      URL,
    );
    expect(entry.failureCallbackInfo?.state).toBe('CALLBACK_PAUSED');
  });

  it('reads a single-string header value as a one-element array and a null map as absent', () => {
    const entry = parseResponse(
      dlqWorkflowMessageSchema,
      { ...dlqWorkflowMessageSparse, header: { 'Content-Type': 'application/json' }, responseHeader: null },
      URL,
    );
    expect(entry.header).toEqual({ 'Content-Type': ['application/json'] });
    expect(entry.responseHeader).toBeUndefined();
  });

  it('names a wrong type', () => {
    const error = responseError(dlqWorkflowMessageSchema, { ...dlqWorkflowMessageFull, responseStatus: '500' });
    expect(error.field).toBe('responseStatus');
    expect(error.message).toContain('expected number, got string');
  });

  it('names a bad header value inside a map', () => {
    const error = responseError(dlqWorkflowMessageSchema, { ...dlqWorkflowMessageFull, responseHeader: { Date: [1] } });
    expect(error.field).toBe('responseHeader.Date.0');
  });

  it('refuses a workflowCreatedAt that is neither a number nor a numeric string', () => {
    const notNumeric = responseError(dlqWorkflowMessageSchema, { ...dlqWorkflowMessageSparse, workflowCreatedAt: 'yesterday' });
    expect(notNumeric.field).toBe('workflowCreatedAt');
    expect(notNumeric.message).toContain('expected a number or a numeric string, got "yesterday"');
    const boolean = responseError(dlqWorkflowMessageSchema, { ...dlqWorkflowMessageSparse, workflowCreatedAt: true });
    expect(boolean.message).toContain('expected number or string, got boolean');
    expect(responseError(dlqWorkflowMessageSchema, { ...dlqWorkflowMessageSparse, workflowCreatedAt: '' }).field).toBe('workflowCreatedAt');
  });

  it('types timestamps as numbers and the state with its known values', () => {
    expectTypeOf<DlqWorkflowMessage['workflowCreatedAt']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<'CALLBACK_FAIL'>().toExtend<NonNullable<NonNullable<DlqWorkflowMessage['failureCallbackInfo']>['state']>>();
    expect(FAILURE_CALLBACK_STATES).toEqual(['CALLBACK_INPROGRESS', 'CALLBACK_SUCCESS', 'CALLBACK_FAIL', 'CALLBACK_CANCELED']);
  });
});

describe('dlqListResponseSchema', () => {
  it('keeps a cursor to continue from', () => {
    const page = parseResponse(dlqListResponseSchema, dlqPageWithCursor, URL);
    expect(page.cursor).toBe('1760440000000-1');
    expect(page.messages.map((m) => m.dlqId)).toEqual(['1760441585757-0', '1760441500001-3']);
  });

  it('reads a missing cursor and an empty-string cursor alike: the end', () => {
    expect(parseResponse(dlqListResponseSchema, dlqPageNoCursor, URL).cursor).toBeUndefined();
    expect(parseResponse(dlqListResponseSchema, dlqPageEmptyCursor, URL).cursor).toBeUndefined();
    expect(parseResponse(dlqListResponseSchema, { ...dlqPageNoCursor, cursor: null }, URL).cursor).toBeUndefined();
  });

  it('reads null messages as an empty page', () => {
    expect(parseResponse(dlqListResponseSchema, dlqPageEmpty, URL)).toEqual({ cursor: undefined, messages: [] });
  });

  it('names the entry that lacks a dlqId', () => {
    const page = copy(dlqPageWithCursor) as { messages: Record<string, unknown>[] };
    delete page.messages[1]!.dlqId;
    expect(responseError(dlqListResponseSchema, page).field).toBe('messages.1.dlqId');
  });

  it('refuses a cursor that is not a string', () => {
    const error = responseError(dlqListResponseSchema, { ...dlqPageWithCursor, cursor: 17 });
    expect(error.field).toBe('cursor');
    expect(error.message).toContain('expected string, got number');
  });
});

describe('retriggerResponseSchema', () => {
  it('accepts the timestamp as a number or a numeric string, and returns a number', () => {
    expect(parseResponse(retriggerResponseSchema, retriggerResponse, URL)).toEqual(retriggerResponse);
    expect(parseResponse(retriggerResponseSchema, retriggerResponseStringTimestamp, URL)).toEqual(retriggerResponse);
  });

  it.each(['workflowRunId', 'workflowCreatedAt'])('requires %s', (field) => {
    const body: Record<string, unknown> = { ...retriggerResponse };
    delete body[field];
    expect(responseError(retriggerResponseSchema, body).field).toBe(field);
  });
});
