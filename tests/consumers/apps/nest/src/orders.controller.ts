import { Controller, Post } from '@nestjs/common';
import { OnMessage, ReceivedMessage, type BodyOf } from '@mailroom/nestjs';
import { orderPlaced } from './destinations';

export const received: Array<BodyOf<typeof orderPlaced>> = [];

@Controller()
export class OrdersController {
  @Post('order-placed')
  @OnMessage(orderPlaced)
  placed(@ReceivedMessage() message: ReceivedMessage<BodyOf<typeof orderPlaced>>) {
    received.push(message.body);
  }
}

/** The README mistake users met: the route's path is not the definition's. */
@Controller()
export class MisroutedController {
  @Post('orders')
  @OnMessage(orderPlaced)
  placed() {}
}
