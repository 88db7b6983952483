import { describe, expect, it } from 'vitest';
import {
  base64,
  BINARY_BODY,
  CALLBACK_RESPONSE_TEXT,
  callbackPayload,
  FAILURE_RESPONSE_TEXT,
  failureCallbackPayload,
  FIXED_NOW,
  ORDER,
  SOURCE_MESSAGE_ID,
  utf8,
} from '../fixtures';
import { expectAccepted, expectBytes, expectNoHandlerCalled, expectNonRetryable, expectSignatureRefused } from './support/expectations';
import { withToken, type Harness } from './support/harness';

/** Callbacks and failure callbacks: same pipeline, the service's JSON envelope decoded for the handler. */
export function callbackCases(h: Harness): void {
  describe('callback', () => callbackOnlyCases(h));
  describe('failure callback', () => failureCallbackCases(h));
}

function firstCall<T>(calls: ReadonlyArray<readonly [T]>): T {
  const call = calls[0];
  if (!call) throw new Error('the handler was not called');
  return call[0];
}

function callbackOnlyCases(h: Harness): void {
  it('decodes both base64 bodies and passes the service fields', async () => {
    expectAccepted(await h.deliver({ to: 'callback', body: callbackPayload() }));
    expect(h.callback).toHaveBeenCalledOnce();
    const message = firstCall(h.callback.mock.calls);
    expect(message.body.text).toBe(CALLBACK_RESPONSE_TEXT);
    expectBytes(message.body.bytes, utf8(CALLBACK_RESPONSE_TEXT));
    expect(message.body.data).toEqual({ received: true });
    expect(message.sourceBody.text).toBe(JSON.stringify(ORDER));
    expect(message.sourceBody).toMatchObject({ valid: true, data: ORDER });
    expect(message).toMatchObject({
      status: 200,
      retried: 1,
      maxRetries: 3,
      sourceMessageId: SOURCE_MESSAGE_ID,
      method: 'POST',
      callerIP: '203.0.113.7',
    });
    // Numeric strings become numbers; a single header value becomes a one-element list.
    expect(message.createdAt).toBe(FIXED_NOW - 60_000);
    expect(message.sourceHeader).toEqual({ 'Content-Type': ['application/json'], 'X-Tenant': ['acme'] });
    // A 2xx ends the retries, whatever the count.
    expect(message.isFinalAttempt).toBe(true);
    expect(message.delivery.messageId).toBe('msg_conformance_1');
    expect(h.destination).not.toHaveBeenCalled();
  });

  it('marks the final attempt: retried === maxRetries after a failure, not a failure with retries left', async () => {
    expectAccepted(await h.deliver({ to: 'callback', body: callbackPayload({ status: 500, retried: 3, maxRetries: 3 }) }));
    expectAccepted(await h.deliver({ to: 'callback', body: callbackPayload({ status: 500, retried: 1, maxRetries: 3 }) }));
    expect(h.callback.mock.calls.map(([message]) => message.isFinalAttempt)).toEqual([true, false]);
  });

  it('accepts extra unknown fields and keeps them', async () => {
    const payload = callbackPayload({ futureField: { nested: [1, 2] }, label: 'blue' });
    expectAccepted(await h.deliver({ to: 'callback', body: payload }));
    expect(firstCall(h.callback.mock.calls)).toMatchObject({ futureField: { nested: [1, 2] }, label: 'blue' });
  });

  it('accepts a minimal callback (only sourceMessageId) with empty bodies', async () => {
    expectAccepted(await h.deliver({ to: 'callback', body: { sourceMessageId: SOURCE_MESSAGE_ID } }));
    const message = firstCall(h.callback.mock.calls);
    expect(message.body.bytes.byteLength).toBe(0);
    expect(message.sourceBody.text).toBe('');
  });

  it('decodes a binary response body to its exact bytes', async () => {
    expectAccepted(await h.deliver({ to: 'callback', body: callbackPayload({ body: base64(BINARY_BODY) }) }));
    expectBytes(firstCall(h.callback.mock.calls).body.bytes, BINARY_BODY);
  });

  it('refuses an unsigned callback', async () => {
    const response = await h.deliver({ to: 'callback', body: callbackPayload(), editHeaders: withToken(h.headerPrefix, undefined) });
    expectSignatureRefused(response, h, 'missing');
  });

  it('refuses a callback whose body was changed after signing', async () => {
    expectSignatureRefused(await h.deliver({ to: 'callback', body: callbackPayload(), tampered: true }), h, 'body-hash');
  });

  it('answers 489 to a body that is not a callback, without calling the handler', async () => {
    expectNonRetryable(await h.deliver({ to: 'callback', body: { hello: 'world' } }), h);
    expectNoHandlerCalled(h);
  });

  it('answers 489 to a callback whose body is not base64', async () => {
    expectNonRetryable(await h.deliver({ to: 'callback', body: callbackPayload({ body: '***not base64***' }) }), h);
    expectNoHandlerCalled(h);
  });

  it('answers 500 when the callback handler throws', async () => {
    h.callback.mockImplementation(() => {
      throw new Error('callback store down');
    });
    expect((await h.deliver({ to: 'callback', body: callbackPayload() })).status).toBe(500);
  });
}

function failureCallbackCases(h: Harness): void {
  it('decodes the bodies and passes dlqId and the workflow fields', async () => {
    expectAccepted(await h.deliver({ to: 'failureCallback', body: failureCallbackPayload() }));
    expect(h.failureCallback).toHaveBeenCalledOnce();
    const message = firstCall(h.failureCallback.mock.calls);
    expect(message).toMatchObject({
      status: 500,
      retried: 3,
      maxRetries: 3,
      dlqId: '1893499200000-0',
      workflowRunId: 'wfr_conformance_1',
      workflowCreatedAt: FIXED_NOW - 120_000,
      sourceMessageId: SOURCE_MESSAGE_ID,
      isFinalAttempt: true,
    });
    expect(message.body.text).toBe(FAILURE_RESPONSE_TEXT);
    expect(message.body.data).toBeUndefined();
    expect(message.sourceBody.text).toBe(JSON.stringify(ORDER));
    expect(h.callback).not.toHaveBeenCalled();
  });

  it('validates sourceBody with the source schema and gives its output as data', async () => {
    const source = { ...ORDER, ignoredByTheSchema: true };
    expectAccepted(
      await h.deliver({ to: 'failureCallback', body: failureCallbackPayload({ sourceBody: base64(JSON.stringify(source)) }) }),
    );
    // The destination's schema strips unknown keys: seeing ORDER exactly proves the schema ran.
    expect(firstCall(h.failureCallback.mock.calls).sourceBody).toMatchObject({ valid: true, data: ORDER });
  });

  it('still calls the handler when sourceBody fails the source schema (that is why it failed), with the issues', async () => {
    const payload = failureCallbackPayload({ sourceBody: base64(JSON.stringify({ orderId: 42 })) });
    expectAccepted(await h.deliver({ to: 'failureCallback', body: payload }));
    const { sourceBody } = firstCall(h.failureCallback.mock.calls);
    expect(sourceBody).toMatchObject({ valid: false, data: undefined, text: '{"orderId":42}' });
    expect(sourceBody.valid === false && sourceBody.issues.length).toBeGreaterThan(0);
  });

  it('accepts extra unknown fields', async () => {
    expectAccepted(
      await h.deliver({ to: 'failureCallback', body: failureCallbackPayload({ failureCallbackInfo: { state: 'CALLBACK_INPROGRESS' } }) }),
    );
    expect(h.failureCallback).toHaveBeenCalledOnce();
  });

  it('refuses a failure callback signed with an unknown key', async () => {
    const response = await h.deliver({ to: 'failureCallback', body: failureCallbackPayload(), key: 'sig_somebody_else' });
    expectSignatureRefused(response, h, 'bad-signature');
  });
}
