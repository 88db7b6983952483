import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, ConfigError, ValidationError, createManagementClient, type ManagementClientOptions } from '../../src';
import { createSearchIndexInput, messagingStats1h, messagingStats30d, messagingUsers, searchIndexPayg } from '../schemas/fixtures';
import { startStubServer, type StubServer } from '../support/stub-server';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function setup(options: ManagementClientOptions = {}) {
  stub = await startStubServer();
  const client = createManagementClient({
    baseUrl: `${stub.url}/v2`,
    user: 'ops@example.com',
    password: 'mgmt-key',
    env: {},
    sleep: async () => {},
    ...options,
  });
  return { stub, client };
}

const basic = `Basic ${Buffer.from('ops@example.com:mgmt-key').toString('base64')}`;

describe('users', () => {
  it('GETs /v2/messaging/users with Basic auth and keeps unknown fields', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: messagingUsers });
    const users = await client.users();
    expect(stub.requests[0]?.method).toBe('GET');
    expect(stub.requests[0]?.path).toBe('/v2/messaging/users');
    expect(stub.requests[0]?.headers.authorization).toBe(basic);
    expect(users).toHaveLength(messagingUsers.length);
    expect(users[0]?.modifying_state).toBeUndefined();
    expect(users[0]?.reserved_type).toBeUndefined();
    expect(users[0]?.prometheus_enabled).toBe('false');
  });

  it('maps 401 to AuthError with a hint about the variables', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 401, json: { error: 'unauthorized' } });
    const error = await client.users().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toMatch(/MAILROOM_MANAGEMENT_USER/);
    expect((error as AuthError).message).not.toContain('mgmt-key');
  });
});

describe('stats', () => {
  it('sends the period and parses every point timestamp to a Date (0, 3 and 9 fraction digits)', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: messagingStats1h });
    const stats = await client.stats('3f1c2b9e-5d4a-4e8f-9b2a-7c6d5e4f3a21', { period: '1h' });
    expect(stub.requests[0]?.path).toBe('/v2/messaging/stats/3f1c2b9e-5d4a-4e8f-9b2a-7c6d5e4f3a21');
    expect(stub.requests[0]?.query).toEqual({ period: '1h' });
    expect(stats.daily_used).toHaveLength(60);
    const points = [...stats.daily_used, ...stats.daily_requests, ...stats.daily_billings];
    for (const point of points) {
      expect(point.date).toBeInstanceOf(Date);
      expect(Number.isNaN(point.date.getTime())).toBe(false);
      expect(point.date.toISOString().slice(0, 19).replace('T', ' ')).toBe(point.x.slice(0, 19));
    }
    const fractions = new Set(points.map((p) => (/\.(\d+) /.exec(p.x)?.[1] ?? '').length));
    expect([...fractions].sort()).toEqual(expect.arrayContaining([0, 3, 9]));
  });

  it('omits the period when not given and reads 240 points for 30d', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: messagingStats30d });
    const stats = await client.stats('u1');
    expect(stub.requests[0]?.rawQuery).toBe('');
    expect(stats.daily_used).toHaveLength(240);
  });

  it('refuses a period outside the spec list and an empty id', async () => {
    const { stub, client } = await setup();
    expect(() => client.stats('u1', { period: '2h' as never })).toThrow(ValidationError);
    expect(() => client.stats('')).toThrow(ValidationError);
    // Never silently the default hour: a bare period or a misspelt option is refused.
    expect(() => client.stats('u1', '1d' as never)).toThrow(/period: '1d'/);
    expect(() => client.stats('u1', { peroid: '1d' } as never)).toThrow(/peroid: unknown option/);
    expect(stub.requests).toHaveLength(0);
  });

  it('names a malformed timestamp field', async () => {
    const { stub, client } = await setup();
    const broken = structuredClone(messagingStats1h) as { daily_used: Array<{ x: string }> };
    broken.daily_used[3]!.x = '2025-13-45 99:00:00 +0000 UTC';
    stub.reply({ json: broken });
    await expect(client.stats('u1')).rejects.toThrow(/daily_used\.3\.x/);
  });
});

describe('searchIndexes', () => {
  it('creates with POST /v2/search and the exact body', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: searchIndexPayg });
    const index = await client.searchIndexes.create(createSearchIndexInput);
    expect(stub.requests[0]?.method).toBe('POST');
    expect(stub.requests[0]?.path).toBe('/v2/search');
    expect(stub.requests[0]?.json()).toEqual(createSearchIndexInput);
    expect(index.max_monthly_reranks).toBe(searchIndexPayg.max_monthly_reranks);
  });

  it('does not retry a create after a 503', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 503, json: { error: 'busy' } });
    await expect(client.searchIndexes.create(createSearchIndexInput)).rejects.toThrow(/503/);
    expect(stub.requests).toHaveLength(1);
  });

  it('gets one index by id', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: searchIndexPayg });
    const index = await client.searchIndexes.get(searchIndexPayg.id);
    expect(stub.requests[0]?.path).toBe(`/v2/search/${searchIndexPayg.id}`);
    expect(index.throughput_vector[0]?.date).toBeInstanceOf(Date);
  });

  it.each([
    ['an unknown region', { name: 'a', region: 'us-east-1', type: 'free' }],
    ['an unknown type', { name: 'a', region: 'eu-west-1', type: 'pro' }],
    ['an empty name', { name: '', region: 'eu-west-1', type: 'free' }],
    ['a missing name', { region: 'eu-west-1', type: 'free' }],
  ])('refuses %s before sending', async (_name, input) => {
    const { stub, client } = await setup();
    await expect(client.searchIndexes.create(input as never)).rejects.toBeInstanceOf(ValidationError);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('configuration', () => {
  it('reads the MAILROOM_MANAGEMENT_* variables', async () => {
    stub = await startStubServer();
    stub.reply({ json: messagingUsers });
    const client = createManagementClient({
      env: {
        MAILROOM_MANAGEMENT_URL: `${stub.url}/v2/`,
        MAILROOM_MANAGEMENT_USER: 'ops@example.com',
        MAILROOM_MANAGEMENT_PASSWORD: 'mgmt-key',
      },
    });
    await client.users();
    expect(stub.requests[0]?.path).toBe('/v2/messaging/users');
    expect(stub.requests[0]?.headers.authorization).toBe(basic);
  });

  it('names each missing setting and its variable, on first use', async () => {
    const firstUse = (options: Parameters<typeof createManagementClient>[0]) => createManagementClient(options).users();
    await expect(firstUse({ env: {} })).rejects.toThrow(/MAILROOM_MANAGEMENT_URL/);
    await expect(firstUse({ baseUrl: 'http://x.test/v2', env: {} })).rejects.toThrow(/MAILROOM_MANAGEMENT_USER/);
    await expect(firstUse({ baseUrl: 'http://x.test/v2', user: 'u', env: {} })).rejects.toBeInstanceOf(ConfigError);
    await expect(firstUse({ baseUrl: 'http://x.test/v2', user: 'u', env: {} })).rejects.toThrow(/MAILROOM_MANAGEMENT_PASSWORD/);
  });
});
