import type { Series } from '@mailroom/core';
import { parseServiceTimestamp } from '@mailroom/core/internal-protocol';
import { describe, expect, it } from 'vitest';
import { always } from './helpers/destination';
import { destination, startTestServer, t, useTestServer } from './helpers/test-server';

useTestServer();

const sum = (points: Array<{ y: number }>) => points.reduce((total, point) => total + point.y, 0);
const series = (list: Series[], id: string) => list.find((entry) => entry.id === id)?.data_points ?? [];

/** A management GET without the client, which refuses a bad period before sending it. */
async function managementGet(path: string): Promise<number> {
  const auth = Buffer.from(`${t.server.managementUser}:${t.server.managementPassword}`).toString('base64');
  const response = await fetch(`${t.server.managementUrl}${path}`, { headers: { authorization: `Basic ${auth}` } });
  await response.text();
  return response.status;
}

describe('management', () => {
  it("lists one messaging user with the server's real tokens and the plan's limits", async () => {
    const users = await t.management.users();
    expect(users).toHaveLength(1);
    const [user] = users;
    expect(user).toMatchObject({
      token: t.server.token,
      read_only_token: t.server.readOnlyToken,
      customer_id: t.server.managementUser,
      active: true,
      state: 'active',
      type: 'free',
      max_retries: 999,
      max_message_size: 1_048_576,
      max_requests_per_day: 1000,
      max_topics: 1,
      max_queues: 10,
      max_delay: 604_800,
      max_dlq_retention_time_milis: 259_200_000,
      timeout: 900,
      prometheus_enabled: 'false',
      deletion_time: 0,
      budget: 0,
    });
    expect(user!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(user).not.toHaveProperty('modifying_state');
    const paid = await startTestServer({ plan: 'paid' });
    try {
      expect((await paid.management.users())[0]).toMatchObject({ type: 'paid', max_retries: 20 });
    } finally {
      await paid.close();
    }
  });

  it('counts what the server really did in the statistics', async () => {
    destination.script('/down', always(500));
    for (let index = 0; index < 3; index += 1)
      await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/ok`, body: 'hello' });
    await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/down`, body: 'x', retries: 1 });
    await t.waitForEvents('delivered', 3);
    await t.waitForEvents('failed', 1);
    const [user] = await t.management.users();
    const stats = await t.management.stats(user!.id);
    expect(stats.daily_used).toHaveLength(60);
    expect(sum(stats.daily_used)).toBe(4);
    expect(sum(series(stats.daily_messaging_messages, 'delivered'))).toBe(3);
    expect(sum(series(stats.daily_messaging_messages, 'failed'))).toBe(1);
    expect(series(stats.daily_messaging_messages, 'delivered')).toHaveLength(60);
    expect(stats.dlq_message_count).toBe(1);
    // 5 attempts sent bodies (3 x 5 bytes + 2 x 1) and read answers ("ok" x 3, "status 500" x 2).
    expect(sum(stats.daily_bandwidth_used)).toBe(3 * 5 + 2 * 1 + 3 * 2 + 2 * 10);
    // One point per minute, the last one holding now.
    const dates = stats.daily_used.map((point) => point.date.getTime());
    expect(dates[1]! - dates[0]!).toBe(60_000);
    expect(Date.now() - dates.at(-1)!).toBeLessThan(60_000);
    expect(stats.daily_used[0]!.x).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,9})? \+0000 UTC$/);
    const now = new Date();
    expect(stats.days).toHaveLength(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate());
    expect(stats.daily_requests).toHaveLength(stats.days.length);
    expect(sum(stats.daily_requests)).toBe(4);
    // Weekday names, as the service's example writes them; the first is the 1st of this month's.
    const firstOfMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).getUTCDay();
    expect(stats.days[0]).toBe(['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][firstOfMonth]);
  });

  it('counts cancelled workflow messages in the workflow series', async () => {
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/wf`,
      body: 'x',
      delay: '1h',
      workflow: { runId: 'wfr_cancel', url: `${destination.url}/wf` },
    });
    await t.messaging.messages.cancel(messageId);
    const [user] = await t.management.users();
    const stats = await t.management.stats(user!.id);
    expect(stats.daily_workflow_messages.map((entry) => entry.id)).toEqual(['delivered', 'failed', 'canceled']);
    expect(sum(series(stats.daily_workflow_messages, 'canceled'))).toBe(1);
  });

  it('answers 60 points for every period and 240 at 3-hour steps for 30d', async () => {
    const [user] = await t.management.users();
    for (const period of ['1h', '3h', '12h', '1d', '3d', '7d'] as const) {
      expect((await t.management.stats(user!.id, { period })).daily_used).toHaveLength(60);
    }
    const month = await t.management.stats(user!.id, { period: '30d' });
    expect(month.daily_used).toHaveLength(240);
    expect(parseServiceTimestamp(month.daily_used[1]!.x).getTime() - parseServiceTimestamp(month.daily_used[0]!.x).getTime()).toBe(
      3 * 3_600_000,
    );
  });

  it('answers 404 for an unknown user and 400 for an unknown period', async () => {
    await expect(t.management.stats('00000000-0000-4000-8000-0000000000ff')).rejects.toMatchObject({ status: 404 });
    const [user] = await t.management.users();
    expect(await managementGet(`/messaging/stats/${user!.id}?period=2h`)).toBe(400);
    expect(await managementGet(`/messaging/stats/${user!.id}`)).toBe(200);
  });

  it('creates and reads search indexes with the limits of their plan', async () => {
    const created = await t.management.searchIndexes.create({ name: 'docs', region: 'us-central1', type: 'payg' });
    expect(created).toMatchObject({
      name: 'docs',
      region: 'us-central1',
      type: 'payg',
      customer_id: t.server.managementUser,
      integration_email: '',
      max_daily_queries: -1,
      max_monthly_bandwidth: -1,
    });
    expect(created.endpoint).toMatch(/^[a-z]+-[a-z]+-\d+-us1$/);
    expect(Math.abs(created.creation_time - Date.now() / 1000)).toBeLessThan(5);
    const read = await t.management.searchIndexes.get(created.id);
    expect(read).toEqual(created);
    const free = await t.management.searchIndexes.create({ name: 'small', region: 'eu-west-1', type: 'free' });
    expect(free.endpoint).toMatch(/-eu1$/);
    expect(free.max_daily_queries).toBeGreaterThan(0);
    await expect(t.management.searchIndexes.get('no-such-index')).rejects.toMatchObject({ status: 404 });
  });

  it('refuses an invalid search index body with 400', async () => {
    const auth = Buffer.from(`${t.server.managementUser}:${t.server.managementPassword}`).toString('base64');
    for (const body of [
      '{"name":"x","region":"mars","type":"free"}',
      '{"name":"x","region":"eu-west-1"}',
      '{"name":"","region":"eu-west-1","type":"free"}',
      '[]',
      'nope',
    ]) {
      const response = await fetch(`${t.server.managementUrl}/search`, {
        method: 'POST',
        headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
        body,
      });
      expect([body, response.status]).toEqual([body, 400]);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
  });
});
