import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { QUERY_FORMS } from '../src/http/filters';
import type { Route } from '../src/http/router';
import { allRoutes } from '../src/http/routes';
import { roleMayCall, toolsFor } from '../src/mcp/mcp-endpoint';
import { MCP_TOOLS } from '../src/mcp/tools';
import type { Service } from '../src/service';
import { destination, t, useTestServer } from './helpers/test-server';

// `mailroom dev` as an MCP server, through the official SDK's client over HTTP: what each token is
// offered (generated from the route table), what an agent does to find and fix a failed message,
// and the console's Host and Origin rules.

useTestServer();

const routes = (): Route[] => allRoutes({} as Service);

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mailroom-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** A tool's text answer: its summary line, then the data. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ summary: string; data: unknown; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: Array<{ type: string; text: string }>;
    isError?: boolean;
  };
  const [summary = '', ...rest] = (result.content[0]?.text ?? '').split('\n');
  return { summary, data: rest.length > 0 ? JSON.parse(rest.join('\n')) : undefined, isError: result.isError === true };
}

describe('the tools each token is offered (generated from the route table)', () => {
  it('binds every tool to a route of the table, and every filter it offers to the grammar', () => {
    const bound = toolsFor('full', routes());
    expect(bound.map(({ tool }) => tool.name)).toEqual(MCP_TOOLS.map((tool) => tool.name));
    for (const { tool, route } of bound) {
      expect(route.auth, tool.name).toBe('messaging');
      if (tool.filters) expect(Array.isArray(route.query) && route.query.length > 0, tool.name).toBe(true);
      if (Array.isArray(route.query)) for (const name of route.query) expect(QUERY_FORMS[name], `${tool.name}: ${name}`).toBeDefined();
    }
  });

  it('offers the read-only token exactly the tools whose route answers it, and lists only those', async () => {
    const expected = MCP_TOOLS.filter((tool) => {
      const route = routes().find((each) => `${each.method} ${each.path}` === tool.route)!;
      return route.method === 'GET' && route.readOnly === 'answer';
    }).map((tool) => tool.name);
    expect(toolsFor('read-only', routes()).map(({ tool }) => tool.name)).toEqual(expected);
    expect(expected).toContain('message_story');
    expect(expected).not.toContain('send');

    const readOnly = await connect(t.server.readOnlyToken);
    const full = await connect(t.server.token);
    try {
      expect((await readOnly.listTools()).tools.map((tool) => tool.name).sort()).toEqual([...expected].sort());
      expect((await full.listTools()).tools).toHaveLength(MCP_TOOLS.length);
      // Every tool it is offered answers it: none is refused by its route.
      for (const name of expected) {
        const args = name === 'message_story' ? { messageId: 'msg_none' } : name === 'workflow_run' ? { runId: 'wfr_none' } : {};
        const { summary } = await call(readOnly, name, args);
        expect(summary, name).not.toMatch(/refused \(403\)/);
      }
      // A tool it is not offered does not exist for it.
      const refused = (await readOnly.callTool({ name: 'send', arguments: { url: `${destination.url}/x` } })) as { isError?: boolean };
      expect(refused.isError).toBe(true);
      expect(destination.received('/x')).toHaveLength(0);
    } finally {
      await readOnly.close();
      await full.close();
    }
  });

  it('decides the read-only role with the same rule as the route table', () => {
    for (const route of routes()) {
      const answered = route.auth === 'messaging' && route.method === 'GET' && route.readOnly === 'answer';
      expect(roleMayCall('read-only', route), `${route.method} ${route.path}`).toBe(answered);
    }
  });
});

describe('an agent finding a failed message, seeing why, and sending it again', () => {
  it('finds it, reads the failing answer, and after the fix sees the resend delivered', async () => {
    let fixed = false;
    destination.script('/orders', () => (fixed ? { status: 200, body: 'ok' } : { status: 500, body: 'TypeError: total is undefined' }));
    const agent = await connect(t.server.token);
    try {
      const sent = await call(agent, 'send', { url: `${destination.url}/orders`, body: { orderId: 'o-1' }, retries: 0 });
      expect(sent.summary).toMatch(/^sent as msg_/);
      const messageId = (sent.data as { messageId: string }).messageId;
      await destination.waitFor('/orders', 1);

      let failed: { messages: Array<{ messageId: string }> } = { messages: [] };
      for (let tries = 0; failed.messages.length === 0 && tries < 100; tries += 1) {
        failed = (await call(agent, 'find_messages', { state: 'FAILED' })).data as typeof failed;
        if (failed.messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(failed.messages.map((message) => message.messageId)).toEqual([messageId]);

      const story = await call(agent, 'message_story', { messageId });
      expect(JSON.stringify(story.data)).toContain('TypeError: total is undefined');

      fixed = true;
      const resent = await call(agent, 'resend_message', { messageId });
      expect(resent.summary).toMatch(/^resent as msg_/);
      await destination.waitFor('/orders', 2);
      expect(JSON.parse(destination.received('/orders')[1]!.text)).toEqual({ orderId: 'o-1' });
    } finally {
      await agent.close();
    }
  });

  it('answers a refusal as an error with the reason, not as data', async () => {
    const agent = await connect(t.server.token);
    try {
      const missing = await call(agent, 'deliver_now', { id: 'msg_none' });
      expect(missing.isError).toBe(true);
      expect(missing.summary).toMatch(/^refused \(404\)/);
    } finally {
      await agent.close();
    }
  });
});

describe('an agent setting up URL groups, queues and schedules', () => {
  it('creates, changes, pauses, resumes and deletes each, as the typed client then sees', async () => {
    const agent = await connect(t.server.token);
    try {
      const urls = [`${destination.url}/a`, `${destination.url}/b`];
      expect((await call(agent, 'add_url_group_endpoints', { name: 'fanout', urls })).summary).toBe('added');
      expect((await t.messaging.urlGroups.get('fanout')).endpoints.map((each) => each.url)).toEqual(urls);
      expect((await call(agent, 'remove_url_group_endpoints', { name: 'fanout', urls: [urls[1]] })).summary).toBe('removed');
      expect((await t.messaging.urlGroups.get('fanout')).endpoints.map((each) => each.url)).toEqual([urls[0]]);
      expect((await call(agent, 'list_url_groups')).summary).toBe('1 URL groups');
      expect((await call(agent, 'delete_url_group', { name: 'fanout' })).summary).toBe('deleted');
      expect(await t.messaging.urlGroups.list()).toEqual([]);

      expect((await call(agent, 'set_queue', { queueName: 'orders', parallelism: 3 })).summary).toBe('saved');
      expect(await t.messaging.queues.get('orders')).toMatchObject({ parallelism: 3, paused: false });
      expect((await call(agent, 'pause_queue', { name: 'orders' })).summary).toBe('paused');
      expect((await t.messaging.queues.get('orders')).paused).toBe(true);
      expect((await call(agent, 'resume_queue', { name: 'orders' })).summary).toBe('resumed');
      expect((await call(agent, 'delete_queue', { name: 'orders' })).summary).toBe('deleted');
      expect(await t.messaging.queues.list()).toEqual([]);

      const created = await call(agent, 'create_schedule', {
        destination: `${destination.url}/report`,
        cron: '0 3 * * *',
        scheduleId: 'nightly',
        body: { kind: 'report' },
        retries: 1,
      });
      expect(created.summary).toBe('created schedule nightly');
      expect(await t.messaging.schedules.get('nightly')).toMatchObject({ cron: '0 3 * * *', body: '{"kind":"report"}', retries: 1 });
      expect((await call(agent, 'pause_schedule', { id: 'nightly' })).summary).toBe('paused');
      expect((await t.messaging.schedules.get('nightly')).isPaused).toBe(true);
      expect((await call(agent, 'resume_schedule', { id: 'nightly' })).summary).toBe('resumed');
      expect((await call(agent, 'fire_schedule', { scheduleId: 'nightly' })).summary).toBe('fired');
      await destination.waitFor('/report', 1);
      const bad = await call(agent, 'create_schedule', { destination: `${destination.url}/report`, cron: '61 * * * *' });
      expect(bad.isError).toBe(true);
      expect(bad.summary).toMatch(/refused \(400\).*cron/i);
      expect((await call(agent, 'delete_schedule', { id: 'nightly' })).summary).toBe('deleted');
      expect(await t.messaging.schedules.list()).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});

describe('who may reach /mcp', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  const post = (headers: Record<string, string>) =>
    fetch(`${t.server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    });

  it('refuses no token or a wrong one (401), and a page of another origin (403)', async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${t.server.token}`, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${t.server.token}`, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${t.server.token}` })).status).toBe(200);
  });

  it('gives the read-only token the settings with every secret hidden, the full token the lines to paste', async () => {
    const settingsFor = async (token: string) => {
      const client = await connect(token);
      try {
        const resource = await client.readResource({ uri: 'mailroom://settings' });
        return (resource.contents[0] as { text: string }).text;
      } finally {
        await client.close();
      }
    };
    const full = await settingsFor(t.server.token);
    expect(full).toContain(`MAILROOM_TOKEN=${t.server.token}`);
    expect(full).toContain(`MAILROOM_CURRENT_SIGNING_KEY=${t.server.currentSigningKey}`);
    const shown = await settingsFor(t.server.readOnlyToken);
    expect(shown).toContain(`MAILROOM_URL=${t.server.url}`);
    for (const secret of [t.server.token, t.server.currentSigningKey, t.server.nextSigningKey, t.server.managementPassword])
      expect(shown).not.toContain(secret);
  });
});
