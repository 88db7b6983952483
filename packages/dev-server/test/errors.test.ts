import { ApiError, AuthError, createManagementClient, createMessagingClient, NotFoundError, PlanLimitError } from '@mailroom/core';
import { describe, expect, it } from 'vitest';

import { raw } from './helpers/raw';
import { destination, startTestServer, t, useTestServer } from './helpers/test-server';

useTestServer();

describe('errors', () => {
  it('answers 401 for a wrong or missing token, as {"error": ...}', async () => {
    const wrong = createMessagingClient({ baseUrl: t.server.url, token: 'nope', retry: false, env: {} });
    const error = await wrong.urlGroups.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 401 });
    // Sentences, and only the credentials this client uses.
    expect((error as Error).message).toBe(
      `GET ${t.server.url}/v2/topics failed with 401: invalid token. Check the token (MAILROOM_TOKEN).`,
    );
    const management = createManagementClient({ baseUrl: t.server.managementUrl, user: 'nobody', password: 'nope', retry: false, env: {} });
    const managementError = await management.users().catch((caught: unknown) => caught);
    expect((managementError as Error).message).toMatch(
      /invalid management credentials\. Check the management credentials \(MAILROOM_MANAGEMENT_USER, MAILROOM_MANAGEMENT_PASSWORD\)\.$/,
    );
    expect((managementError as Error).message).not.toContain('MAILROOM_TOKEN');
    const missing = await raw(t, 'GET', '/v2/topics', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: expect.any(String) });
    expect(missing.headers.get('content-type')).toBe('application/json');
  });

  it('lets the read-only token GET and refuses everything else with 403', async () => {
    await expect(t.readOnly.urlGroups.list()).resolves.toEqual([]);
    await expect(t.readOnly.workflowDlq.list()).resolves.toMatchObject({ messages: [] });
    await expect(t.readOnly.enqueue({ queue: 'q', destination: `${destination.url}/x`, body: 'x' })).rejects.toMatchObject({ status: 403 });
    await expect(t.readOnly.urlGroups.addEndpoints('g', [{ url: `${destination.url}/a` }])).rejects.toMatchObject({ status: 403 });
    await t.messaging.urlGroups.addEndpoints('g', [{ url: `${destination.url}/a` }]);
    await expect(t.readOnly.urlGroups.removeEndpoints('g', [{ url: `${destination.url}/a` }])).rejects.toMatchObject({ status: 403 });
    await expect(t.readOnly.workflowDlq.retriggerFailureCallback('1-1')).rejects.toMatchObject({ status: 403 });
    expect(destination.received('/x')).toHaveLength(0);
  });

  it('never lets the read-only token read the signing keys, on any GET route', async () => {
    const error = await t.readOnly.signingKeys.get().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 403 });
    await expect(t.messaging.signingKeys.get()).resolves.toEqual({ current: t.server.currentSigningKey, next: t.server.nextSigningKey });
    // Every GET the interface has, with some state in it: no answer carries a key.
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/x`, body: 'x', delay: '1d' });
    await t.messaging.urlGroups.addEndpoints('g', [{ url: `${destination.url}/a` }]);
    const secrets = [t.server.currentSigningKey, t.server.nextSigningKey, t.server.token];
    for (const path of [
      '/v2/topics',
      '/v2/topics/g',
      `/v2/messages/${messageId}`,
      '/v2/events',
      '/v2/queues',
      '/v2/queues/q',
      '/v2/schedules',
      '/v2/dlq',
      '/v2/workflows/dlq',
      '/v2/flowControl',
      '/v2/globalParallelism',
      '/console/settings.json',
    ]) {
      const answer = await raw(t, 'GET', path, { token: t.server.readOnlyToken });
      expect([path, answer.status]).toEqual([path, 200]);
      for (const secret of secrets) expect([path, JSON.stringify(answer.body).includes(secret)]).toEqual([path, false]);
    }
  });

  it('answers 400 for a destination without http:// or https://', async () => {
    const expected = { error: 'invalid destination url: endpoint has invalid scheme, add http:// or https://' };
    for (const tail of ['ftp://files.test/x', 'app.test/hook', 'mailto:a@b.test']) {
      const answer = await raw(t, 'POST', `/v2/enqueue/q/${tail}`, { body: 'x' });
      expect([tail, answer.status, answer.body]).toEqual([tail, 400, expected]);
    }
    // Through the client: a bare host name reaches the server as a group name that does not exist.
    const error = await t.messaging.enqueue({ queue: 'q', destination: 'app.test', body: 'x' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, serviceMessage: expected.error });
  });

  it('answers 404 "topic <name> not found" for an unknown URL group', async () => {
    const error = await t.messaging.enqueue({ queue: 'q', destination: 'no-such-group', body: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, serviceMessage: 'topic no-such-group not found' });
    await expect(t.messaging.urlGroups.removeEndpoints('no-such-group', [{ name: 'a' }])).rejects.toMatchObject({
      status: 404,
      serviceMessage: 'topic no-such-group not found',
    });
  });

  it('answers 400 for an invalid retry-delay expression and other malformed headers', async () => {
    const url = `/v2/enqueue/q/${destination.url}/x`;
    for (const [header, value] of [
      ['Service-Retry-Delay', 'pow(2, retried'],
      ['Service-Retry-Delay', 'eval(1)'],
      ['Service-Retries', 'three'],
      ['Service-Delay', '10 minutes'],
      ['Service-Timeout', '1d'],
      ['Service-Not-Before', 'tomorrow'],
      ['Service-Method', 'FETCH'],
      ['Service-Callback', 'ftp://cb.test'],
      ['Service-Failure-Callback', 'cb.test'],
      ['Service-Callback-Retry-Delay', '1000 +'],
      ['Service-Workflow-CreatedAt', 'yesterday'],
    ] as const) {
      // A callback's settings count only with its URL; the run id makes the workflow headers count.
      const context = { 'Service-Callback': `${destination.url}/cb`, 'Service-Workflow-RunId': 'wfr_x' };
      const answer = await raw(t, 'POST', url, { headers: { ...context, [header]: value }, body: 'x' });
      expect([header, value, answer.status]).toEqual([header, value, 400]);
      expect((answer.body as { error: string }).error).toContain(header);
    }
    expect(destination.received('/x')).toHaveLength(0);
  });

  it('answers 412 for retries above the plan maximum (free 999, paid 20)', async () => {
    const answer = await raw(t, 'POST', `/v2/enqueue/q/${destination.url}/x`, { headers: { 'Service-Retries': '1000' }, body: 'x' });
    expect(answer.status).toBe(412);
    await expect(
      t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/x`, body: 'x', retries: 999, delay: '1h' }),
    ).resolves.toHaveProperty('messageId');
    const paid = await startTestServer({ plan: 'paid' });
    try {
      const error = await paid.messaging
        .enqueue({ queue: 'q', destination: `${destination.url}/x`, body: 'x', retries: 21 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PlanLimitError);
      await expect(
        paid.messaging.enqueue({
          queue: 'q',
          destination: `${destination.url}/x`,
          body: 'x',
          callback: { url: `${destination.url}/cb`, retries: 21 },
        }),
      ).rejects.toMatchObject({ status: 412 });
      await expect(
        paid.messaging.enqueue({ queue: 'q', destination: `${destination.url}/x`, body: 'x', retries: 20 }),
      ).resolves.toHaveProperty('messageId');
    } finally {
      await paid.close();
    }
  });

  it('answers 412 for a delay beyond the plan maximum and a body above the message size', async () => {
    await expect(t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/x`, body: 'x', delay: '8d' })).rejects.toMatchObject({
      status: 412,
    });
    const big = 'x'.repeat(1_048_577);
    await expect(t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/x`, body: big })).rejects.toMatchObject({
      status: 412,
    });
  });

  it('answers 400 for api/llm, which the dev server does not emulate', async () => {
    const error = await t.messaging
      .enqueue({ queue: 'q', destination: 'api/llm', body: '{}', callback: `${destination.url}/cb` })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as ApiError).serviceMessage).toMatch(/not supported by the dev server: .*Send to the provider's own URL instead/);
  });

  it('answers 404 for unknown paths, 405 for a wrong method, 400 for a bad queue name', async () => {
    expect((await raw(t, 'GET', '/v2/nothing')).status).toBe(404);
    expect((await raw(t, 'GET', '/v2/enqueue/q/https://a.test/')).status).toBe(405);
    expect((await raw(t, 'POST', '/v2/enqueue/bad%20queue/https://a.test/', { body: 'x' })).status).toBe(400);
  });

  it('guards the management interface with Basic auth', async () => {
    const wrong = createManagementClient({
      baseUrl: t.server.managementUrl,
      user: t.server.managementUser,
      password: 'wrong',
      retry: false,
      env: {},
    });
    await expect(wrong.users()).rejects.toMatchObject({ status: 401 });
    // The messaging token is not a management credential.
    expect((await raw(t, 'GET', '/management/v2/messaging/users')).status).toBe(401);
  });
});
