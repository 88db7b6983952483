import { defineDestination } from '@mailroom/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestService, type TestService } from '../src';

// The test service, listening, is an MCP server like mailroom dev: an agent driving a test finds what
// failed with the same tools (docs/mcp.md).

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

it('serves /mcp when listening: the failed message and its failing answer, with the test service token', async () => {
  service = await createTestService({ app: { fetch: () => new Response('no database', { status: 503 }) } });
  await service.client.send(orderPlaced, { orderId: 'o-1' }, { retries: 0 });
  await service.runUntilIdle();

  const agent = new Client({ name: 'test-agent', version: '1' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${service.env.MAILROOM_TOKEN}` } },
    }),
  );
  try {
    const found = (await agent.callTool({ name: 'find_messages', arguments: { state: 'FAILED' } })) as { content: Array<{ text: string }> };
    const [summary, ...data] = found.content[0]!.text.split('\n');
    expect(summary).toBe('1 messages');
    const { messages } = JSON.parse(data.join('\n')) as { messages: Array<{ messageId: string }> };
    const story = (await agent.callTool({ name: 'message_story', arguments: { messageId: messages[0]!.messageId } })) as {
      content: Array<{ text: string }>;
    };
    expect(story.content[0]!.text).toContain('no database');
    const settings = await agent.readResource({ uri: 'mailroom://settings' });
    expect((settings.contents[0] as { text: string }).text).toContain(`MAILROOM_URL=${service.url}`);
  } finally {
    await agent.close();
  }
});
