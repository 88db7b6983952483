import { Controller, Get, Inject, Post } from '@nestjs/common';
import { OnCallback, OnFailureCallback, OnMessage, ReceivedMessage } from '@mailroom/nestjs';
import type { BodyOf, CallbackMessage, FailureCallbackMessage } from '@mailroom/nestjs';
import { orderPlaced } from './destinations';
import { EventLog } from './events';

type Order = BodyOf<typeof orderPlaced>;

@Controller()
export class OrdersController {
  // Explicit @Inject: builds without decorator metadata (esbuild, tsup, vitest) still wire it.
  constructor(@Inject(EventLog) private readonly log: EventLog) {}

  @Post(orderPlaced.path)
  @OnMessage(orderPlaced)
  placed(@ReceivedMessage() message: ReceivedMessage<Order>) {
    this.log.events.push({ kind: 'order', orderId: message.body.orderId, total: message.body.total, retried: message.retried });
    return { stored: message.body.orderId };
  }

  @Post('callbacks')
  @OnCallback({ source: orderPlaced })
  attempted(@ReceivedMessage() message: CallbackMessage<Order>) {
    this.log.events.push({
      kind: 'callback',
      status: message.status,
      isFinalAttempt: message.isFinalAttempt,
      orderId: message.sourceBody.valid ? message.sourceBody.data.orderId : undefined,
    });
  }

  @Post('failures')
  @OnFailureCallback({ source: orderPlaced })
  failed(@ReceivedMessage() message: FailureCallbackMessage<Order>) {
    this.log.events.push({
      kind: 'failure-callback',
      dlqId: message.dlqId,
      orderId: message.sourceBody.valid ? message.sourceBody.data.orderId : undefined,
    });
  }

  @Get('events')
  list() {
    return this.log.events;
  }
}
