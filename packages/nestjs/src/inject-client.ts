import { Inject } from '@nestjs/common';
import { MAILROOM_MANAGEMENT_CLIENT, MAILROOM_MESSAGING_CLIENT } from './tokens';

/**
 * Injects the `MessagingClient` of `MailroomModule`: `@Inject(MAILROOM_MESSAGING_CLIENT)` by a
 * shorter name. Explicit, so it works in builds without decorator metadata (esbuild, tsup, vitest).
 *
 * @example
 * @Injectable()
 * export class Checkout {
 *   constructor(@InjectMessagingClient() private readonly mailroom: MessagingClient) {}
 *   place(order: Order) {
 *     return this.mailroom.send(orderPlaced, order);
 *   }
 * }
 */
export function InjectMessagingClient(): PropertyDecorator & ParameterDecorator {
  return Inject(MAILROOM_MESSAGING_CLIENT);
}

/**
 * Injects the `ManagementClient` of `MailroomModule` (configure it with `management: {...}` or the
 * `MAILROOM_MANAGEMENT_*` variables).
 *
 * @example
 * constructor(@InjectManagementClient() private readonly management: ManagementClient) {}
 */
export function InjectManagementClient(): PropertyDecorator & ParameterDecorator {
  return Inject(MAILROOM_MANAGEMENT_CLIENT);
}
