import { NotFoundError, type DlqWorkflowMessage } from '@mailroom/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { always } from './helpers/destination';
import { raw } from './helpers/raw';
import { destination, t, useTestServer, type TestServer } from './helpers/test-server';

useTestServer();
beforeEach(() => {
  destination.script('/s500', always(500, { 'X-Answer': 'no' }, 'server error'));
  destination.script('/s404', always(404, {}, 'missing'));
  destination.script('/fc-fail', always(500, {}, 'callback down'));
  destination.script('/fc-ok', always(200, {}, 'noted'));
});

/** Enqueues one workflow message that fails at once, and waits until its failure callback settled. */
async function failWorkflow(options: {
  runId: string;
  path?: string;
  label?: string;
  failureCallback?: 'ok' | 'fail' | 'none';
}): Promise<string> {
  const { messageId } = await t.messaging.enqueue({
    queue: `q-${options.runId}`,
    destination: `${destination.url}${options.path ?? '/s500'}`,
    body: `{"run":"${options.runId}"}`,
    contentType: 'application/json',
    retries: 0,
    ...(options.label ? { label: options.label } : {}),
    ...(options.failureCallback === 'none'
      ? {}
      : { failureCallback: { url: `${destination.url}/fc-${options.failureCallback ?? 'ok'}`, retries: 0 } }),
    workflow: { runId: options.runId, url: `${destination.url}/workflow`, createdAt: 1_700_000_000_000 },
  });
  await t.waitForEvents('dlq', 1, (event) => event.messageId === messageId);
  if (options.failureCallback !== 'none')
    await t.waitForEvents(
      'failure-callback-state',
      1,
      (event) => event.state !== 'CALLBACK_INPROGRESS' && dlqIdOf(messageId) === event.dlqId,
    );
  return messageId;
}

function dlqIdOf(messageId: string): string | undefined {
  const event = t.events.find((candidate) => candidate.type === 'dlq' && candidate.messageId === messageId);
  return event?.type === 'dlq' ? event.dlqId : undefined;
}

const ids = (messages: DlqWorkflowMessage[]) => messages.map((message) => message.workflowRunId);

describe('workflow DLQ', () => {
  it('keeps a failed workflow message with every field of the spec table', async () => {
    const messageId = await failWorkflow({ runId: 'wfr_a', label: 'billing', failureCallback: 'fail' });
    const page = await t.messaging.workflowDlq.list();
    expect(page.cursor).toBeUndefined();
    expect(page.messages).toHaveLength(1);
    const entry = page.messages[0]!;
    expect(entry).toMatchObject({
      dlqId: dlqIdOf(messageId),
      messageId,
      url: `${destination.url}/s500`,
      method: 'POST',
      maxRetries: 0,
      failureCallback: `${destination.url}/fc-fail`,
      callerIP: '127.0.0.1',
      workflowRunId: 'wfr_a',
      workflowCreatedAt: 1_700_000_000_000,
      workflowUrl: `${destination.url}/workflow`,
      responseStatus: 500,
      responseBody: 'server error',
      label: 'billing',
      body: '{"run":"wfr_a"}',
      failureCallbackInfo: { state: 'CALLBACK_FAIL', responseStatus: 500, responseBody: 'callback down' },
    });
    expect(entry.dlqId).toMatch(/^\d+-\d+$/);
    expect(entry.header?.['Content-Type']).toEqual(['application/json']);
    expect(entry.responseHeader?.['X-Answer']).toEqual(['no']);
    expect(entry.failureCallbackInfo?.responseHeaders?.['Content-Type']).toEqual(['text/plain']);
    expect(typeof entry.createdAt).toBe('number');
    expect(typeof entry.notBefore).toBe('number');
  });

  it('shows CALLBACK_INPROGRESS while the failure callback runs, then its outcome', async () => {
    destination.script('/fc-slow', () => ({ status: 200, delayMs: 300 }));
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/s500`,
      body: 'x',
      retries: 0,
      failureCallback: `${destination.url}/fc-slow`,
      workflow: { runId: 'wfr_slow', url: `${destination.url}/workflow` },
    });
    await t.waitForEvents('dlq', 1, (event) => event.messageId === messageId);
    expect((await t.messaging.workflowDlq.list()).messages[0]?.failureCallbackInfo?.state).toBe('CALLBACK_INPROGRESS');
    await t.waitForEvents('failure-callback-state', 1, (event) => event.state === 'CALLBACK_SUCCESS');
    expect((await t.messaging.workflowDlq.list()).messages[0]?.failureCallbackInfo?.state).toBe('CALLBACK_SUCCESS');
  });

  it('omits failureCallbackInfo when there was no failure callback, and refuses to re-trigger it', async () => {
    const messageId = await failWorkflow({ runId: 'wfr_none', failureCallback: 'none' });
    const [entry] = (await t.messaging.workflowDlq.list()).messages;
    expect(entry?.failureCallbackInfo).toBeUndefined();
    await expect(t.messaging.workflowDlq.retriggerFailureCallback(dlqIdOf(messageId)!)).rejects.toMatchObject({ status: 400 });
  });

  it('lists newest first with working cursors, count 1..100, the cursor absent on the last page', async () => {
    for (const runId of ['wfr_1', 'wfr_2', 'wfr_3', 'wfr_4', 'wfr_5']) await failWorkflow({ runId });
    const first = await t.messaging.workflowDlq.list({ count: 2 });
    expect(ids(first.messages)).toEqual(['wfr_5', 'wfr_4']);
    expect(first.cursor).toBeTruthy();
    const second = await t.messaging.workflowDlq.list({ count: 2, cursor: first.cursor! });
    expect(ids(second.messages)).toEqual(['wfr_3', 'wfr_2']);
    const third = await t.messaging.workflowDlq.list({ count: 2, cursor: second.cursor! });
    expect(ids(third.messages)).toEqual(['wfr_1']);
    expect(third.cursor).toBeUndefined();
    const exact = await t.messaging.workflowDlq.list({ count: 5 });
    expect(exact.messages).toHaveLength(5);
    expect(exact.cursor).toBeUndefined();
    const all: DlqWorkflowMessage[] = [];
    for await (const entry of t.messaging.workflowDlq.iterate({ count: 1 })) all.push(entry);
    expect(ids(all)).toEqual(['wfr_5', 'wfr_4', 'wfr_3', 'wfr_2', 'wfr_1']);
    for (const count of ['0', '101', 'x']) expect((await raw(t, 'GET', `/v2/workflows/dlq?count=${count}`)).status).toBe(400);
    expect((await raw(t, 'GET', '/v2/workflows/dlq?cursor=abc')).status).toBe(400);
    const raw1 = await raw(t, 'GET', '/v2/workflows/dlq?count=5');
    expect(raw1.body).not.toHaveProperty('cursor');
  });

  it('applies every filter, combined with AND, under the spec names and the newer spellings', async () => {
    const before = Date.now();
    await failWorkflow({ runId: 'wfr_a', label: 'red', failureCallback: 'ok' });
    await failWorkflow({ runId: 'wfr_b', label: 'blue', path: '/s404', failureCallback: 'fail' });
    await failWorkflow({ runId: 'wfr_c', label: 'red', path: '/s404', failureCallback: 'fail' });
    const after = Date.now();
    const list = async (filter: Parameters<TestServer['messaging']['workflowDlq']['list']>[0]) =>
      ids((await t.messaging.workflowDlq.list(filter)).messages);
    expect(await list({ workflowRunId: 'wfr_b' })).toEqual(['wfr_b']);
    expect(await list({ workflowUrl: `${destination.url}/workflow` })).toEqual(['wfr_c', 'wfr_b', 'wfr_a']);
    expect(await list({ workflowUrl: 'http://elsewhere.test/' })).toEqual([]);
    expect(await list({ responseStatus: 404 })).toEqual(['wfr_c', 'wfr_b']);
    expect(await list({ label: 'red' })).toEqual(['wfr_c', 'wfr_a']);
    expect(await list({ label: 'red', responseStatus: 404 })).toEqual(['wfr_c']);
    expect(await list({ failureCallbackState: 'CALLBACK_FAIL' })).toEqual(['wfr_c', 'wfr_b']);
    expect(await list({ failureCallbackState: 'CALLBACK_SUCCESS' })).toEqual(['wfr_a']);
    expect(await list({ callerIP: '127.0.0.1' })).toHaveLength(3);
    expect(await list({ callerIP: '10.0.0.1' })).toEqual([]);
    expect(await list({ fromDate: before, toDate: after })).toHaveLength(3);
    expect(await list({ fromDate: after + 1 })).toEqual([]);
    expect(await list({ toDate: before - 1 })).toEqual([]);

    const newer = await raw(t, 'GET', '/v2/dlq?source=workflow&callerIp=127.0.0.1&failureFunctionState=CALLBACK_FAIL&count=1');
    expect(newer.status).toBe(200);
    const body = newer.body as { messages: DlqWorkflowMessage[]; cursor?: string };
    expect(ids(body.messages)).toEqual(['wfr_c']);
    const next = await raw(
      t,
      'GET',
      `/v2/dlq?source=workflow&callerIp=127.0.0.1&failureFunctionState=CALLBACK_FAIL&count=1&cursor=${body.cursor}`,
    );
    expect(ids((next.body as { messages: DlqWorkflowMessage[] }).messages)).toEqual(['wfr_b']);
    expect(next.body).not.toHaveProperty('cursor');
    expect((await raw(t, 'GET', '/v2/workflows/dlq?responseStatus=abc')).status).toBe(400);
    expect((await raw(t, 'GET', '/v2/dlq?source=nope')).status).toBe(400);
  });

  it('lists only workflow messages; other failures stay out of the workflow listing', async () => {
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/s500`, body: 'x', retries: 0 });
    await t.waitForEvents('dlq', 1, (event) => event.messageId === messageId);
    await failWorkflow({ runId: 'wfr_only' });
    expect(ids((await t.messaging.workflowDlq.list()).messages)).toEqual(['wfr_only']);
    const workflow = await raw(t, 'GET', '/v2/dlq?source=workflow');
    expect((workflow.body as { messages: unknown[] }).messages).toHaveLength(1);
  });

  it('re-triggers a failed failure callback, only from CALLBACK_FAIL', async () => {
    const messageId = await failWorkflow({ runId: 'wfr_retry', failureCallback: 'fail' });
    const dlqId = dlqIdOf(messageId)!;
    expect(destination.received('/fc-fail')).toHaveLength(1);
    // The callback's receiver is fixed now: the re-trigger succeeds.
    destination.script('/fc-fail', always(200, {}, 'fixed'));
    const answer = await t.messaging.workflowDlq.retriggerFailureCallback(dlqId);
    expect(answer).toEqual({ workflowRunId: 'wfr_retry', workflowCreatedAt: 1_700_000_000_000 });
    await expect(t.messaging.workflowDlq.retriggerFailureCallback(dlqId)).rejects.toMatchObject({ status: 400 });
    await t.waitForEvents('failure-callback-state', 1, (event) => event.dlqId === dlqId && event.state === 'CALLBACK_SUCCESS');
    const [request] = await destination.waitFor('/fc-fail', 2).then((requests) => requests.slice(1));
    expect(JSON.parse(request!.text)).toMatchObject({ dlqId, sourceMessageId: messageId, workflowRunId: 'wfr_retry', status: 500 });
    const [entry] = (await t.messaging.workflowDlq.list({ workflowRunId: 'wfr_retry' })).messages;
    expect(entry?.failureCallbackInfo).toMatchObject({ state: 'CALLBACK_SUCCESS', responseStatus: 200, responseBody: 'fixed' });
    await expect(t.messaging.workflowDlq.retriggerFailureCallback(dlqId)).rejects.toMatchObject({ status: 400 });
  });

  it('answers 404 for an unknown dlqId and 403 for the read-only token', async () => {
    await expect(t.messaging.workflowDlq.retriggerFailureCallback('1-999')).rejects.toMatchObject({ status: 404 });
    // A plain message's entry is not a failed workflow run's: no run to re-trigger for.
    const plain = await t.messaging.publish({
      destination: `${destination.url}/s500`,
      body: 'x',
      retries: 0,
      failureCallback: `${destination.url}/fc-fail`,
    });
    await t.waitForEvents(
      'failure-callback-state',
      1,
      (event) => event.state === 'CALLBACK_FAIL' && event.dlqId === dlqIdOf(plain.messageId),
    );
    await expect(t.messaging.workflowDlq.retriggerFailureCallback(dlqIdOf(plain.messageId)!)).rejects.toMatchObject({ status: 404 });
    const messageId = await failWorkflow({ runId: 'wfr_ro', failureCallback: 'fail' });
    await expect(t.readOnly.workflowDlq.retriggerFailureCallback(dlqIdOf(messageId)!)).rejects.toMatchObject({ status: 403 });
    expect((await t.readOnly.workflowDlq.list()).messages).toHaveLength(1);
  });
});

describe('an unknown DLQ id', () => {
  it('is a NotFoundError for get, delete and retry alike', async () => {
    for (const call of [() => t.messaging.dlq.get('nope'), () => t.messaging.dlq.delete('nope'), () => t.messaging.dlq.retry('nope')]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NotFoundError);
    }
    const retried = await t.messaging.dlq.retry('nope').catch((caught: unknown) => caught);
    expect((retried as Error).message).toMatch(/no DLQ entry nope: it was never there, or was already retried, deleted or expired/);
  });
});

describe('what a DLQ entry carries', () => {
  it('the caller under one spelling (callerIp; the spec’s callerIP for a workflow run), and only the message’s own headers', async () => {
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/s500`,
      body: 'x',
      retries: 0,
      headers: { 'X-Tenant': 'acme' },
    });
    await t.waitForEvents('dlq', 1);
    const raw = (await (await fetch(`${t.server.url}/v2/dlq`, { headers: { authorization: `Bearer ${t.server.token}` } })).json()) as {
      messages: Array<Record<string, unknown>>;
    };
    const entry = raw.messages.find((message) => message.messageId === messageId)!;
    expect(entry.callerIp).toBe('127.0.0.1');
    expect(entry).not.toHaveProperty('callerIP');
    // As delivered: the forwarded header under its own name, none of the message's settings.
    const names = Object.keys(entry.header as object);
    expect(names).toEqual(['Content-Type', 'X-Tenant']);
    // The sending client's own request headers are not the message's.
    for (const clientHeader of ['User-Agent', 'Accept', 'Accept-Encoding', 'Host', 'Connection', 'Authorization', 'Content-Length']) {
      expect(names).not.toContain(clientHeader);
    }
    await failWorkflow({ runId: 'wfr_caller', failureCallback: 'none' });
    const workflow = (await (
      await fetch(`${t.server.url}/v2/workflows/dlq`, { headers: { authorization: `Bearer ${t.server.token}` } })
    ).json()) as {
      messages: Array<Record<string, unknown>>;
    };
    expect(workflow.messages[0]).toMatchObject({ callerIP: '127.0.0.1' });
    expect(workflow.messages[0]).not.toHaveProperty('callerIp');
  });
});
