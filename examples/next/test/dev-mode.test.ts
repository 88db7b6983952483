import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMessagingClient } from '@mailroom/core';
import { closeStartedDevServers } from '@mailroom/core/internal-protocol';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The route handlers in dev mode (`MAILROOM_DEV=1 next dev`, no .env): they verify with the dev
// server's keys. A dev-mode client sends (starting the dev server), and a bare node:http bridge
// plays Next's server in front of the handlers. (MAILROOM_DEV holds port 0 only so the test never
// needs port 8288: a dev server of this process, on whatever port it gets.)

let bridge: Server | undefined;
afterAll(async () => {
  bridge?.close();
  vi.unstubAllEnvs();
  await closeStartedDevServers();
});

describe('the Next example in dev mode', () => {
  it('verifies what mailroom dev delivers, with MAILROOM_DEV and no keys', async () => {
    const dev = 'http://127.0.0.1:0';
    vi.stubEnv('MAILROOM_DEV', dev);
    vi.stubEnv('MAILROOM_CURRENT_SIGNING_KEY', '');
    vi.stubEnv('MAILROOM_NEXT_SIGNING_KEY', '');
    const { POST } = await import('../app/api/orders/route');
    const { events } = await import('../lib/events');
    bridge = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const request = new Request(`http://localhost${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks),
      });
      const response = await POST(request, undefined);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => bridge!.listen(0, '127.0.0.1', resolve));
    const appUrl = `http://localhost:${(bridge.address() as AddressInfo).port}`;
    const { orderPlaced } = await import('../lib/destinations');
    await createMessagingClient({ env: { MAILROOM_DEV: dev }, appUrl }).send(orderPlaced, { orderId: 'dev-next', total: 4 });
    const deadline = Date.now() + 10_000;
    while (!events.some((event) => event.kind === 'order' && event.orderId === 'dev-next')) {
      if (Date.now() > deadline) throw new Error('the order never arrived');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(events.find((event) => event.kind === 'order')).toMatchObject({ orderId: 'dev-next', total: 4 });
  }, 30_000);
});
