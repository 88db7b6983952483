import type { BodyOf } from '@mailroom/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { Controller, Inject, Post } from '@nestjs/common';
import { afterEach, describe, expect, it, vi, type Mock } from 'vitest';
import { OnMessage, ReceivedMessage } from '../src';
import { delivery, order, orderPlaced, orderPlacedAt, postBytes } from '@mailroom/test-support';
import { closeApps, mailroom, startApp } from './nest-app';

// Exactly-once handling on Nest routes: the module's store (or the route's own) guards the method.

const SPY = 'SPY';
type Spy = Mock<(message: unknown) => unknown>;
const GATE = 'GATE';

@Controller()
class OrdersController {
  constructor(
    @Inject(SPY) private readonly spy: Spy,
    @Inject(GATE) private readonly gate: { wait: Promise<void> },
  ) {}

  @Post('orders')
  @OnMessage(orderPlaced)
  placed(@ReceivedMessage() message: ReceivedMessage<BodyOf<typeof orderPlaced>>) {
    return this.spy(message.messageId);
  }

  @Post('slow')
  @OnMessage(orderPlacedAt('/slow'))
  async slow(@ReceivedMessage('messageId') messageId: string) {
    this.spy(messageId);
    await this.gate.wait;
  }

  @Post('every-time')
  @OnMessage(orderPlacedAt('/every-time'), { idempotency: false })
  everyTime(@ReceivedMessage('messageId') messageId: string) {
    this.spy(messageId);
  }
}

async function start(spy: Spy, gate: { wait: Promise<void> } = { wait: Promise.resolve() }) {
  return startApp({
    imports: [mailroom({ idempotency: createMemoryStore() })],
    controllers: [OrdersController],
    providers: [
      { provide: SPY, useValue: spy },
      { provide: GATE, useValue: gate },
    ],
  });
}

describe('idempotency on Nest routes', () => {
  afterEach(closeApps);

  it('calls the method once per message: a later delivery is answered 200 with Mailroom-Already-Handled', async () => {
    const spy: Spy = vi.fn(() => ({ saved: true }));
    const app = await start(spy);
    const send = async () =>
      postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order, { messageId: 'msg_n1' }));
    const first = await send();
    expect([first.status, first.body, first.headers['mailroom-already-handled']]).toEqual([200, { saved: true }, undefined]);
    const again = await send();
    expect([again.status, again.headers['mailroom-already-handled']]).toEqual([200, 'true']);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('answers a concurrent copy 409 with Retry-After while the first runs', async () => {
    const spy: Spy = vi.fn();
    let open!: () => void;
    const app = await start(spy, { wait: new Promise<void>((resolve) => (open = resolve)) });
    const signed = await delivery('http://127.0.0.1/slow', order, { messageId: 'msg_n2' });
    const first = postBytes(app.getHttpServer(), '/slow', signed).then((response) => response);
    await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));
    // The service's copy is a delivery of its own, with its own token (a token replayed is refused).
    const copy = await postBytes(app.getHttpServer(), '/slow', await delivery('http://127.0.0.1/slow', order, { messageId: 'msg_n2' }));
    expect([copy.status, Number(copy.headers['retry-after']) >= 1]).toEqual([409, true]);
    open();
    expect((await first).status).toBe(200);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('lets a route opt out with { idempotency: false }', async () => {
    const spy: Spy = vi.fn();
    const app = await start(spy);
    const signed = await delivery('http://127.0.0.1/every-time', order, { messageId: 'msg_n3' });
    await postBytes(app.getHttpServer(), '/every-time', signed);
    await postBytes(app.getHttpServer(), '/every-time', signed);
    expect(spy).toHaveBeenCalledTimes(2);
  });
});
