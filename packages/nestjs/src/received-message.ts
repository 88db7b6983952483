import type { ReceivedMessage as CoreReceivedMessage } from '@mailroom/core';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { recordReceivedMessageParam } from './received-message-params';
import { requestState } from './request-state';

/** The property of the message to inject instead of the whole message, e.g. `'body'`. */
export type ReceivedMessageKey = keyof CoreReceivedMessage;

/** Looks up what `SignatureGuard` verified and kept on the request. */
function receivedMessageFactory(key: ReceivedMessageKey | undefined, context: ExecutionContext): unknown {
  const state = requestState(context.switchToHttp().getRequest<object>());
  if (!state.verified) {
    throw new Error(
      `@ReceivedMessage() has no message: ${context.getClass().name}.${context.getHandler().name} is not guarded by SignatureGuard. ` +
        'Mark it with @OnMessage(definition), @OnCallback() or @OnFailureCallback().',
    );
  }
  return key === undefined ? state.message : (state.message as Record<string, unknown>)[key];
}

/**
 * Injects the verified message of a Mailroom route: `ReceivedMessage<T>` on `@OnMessage` routes,
 * `CallbackMessage` / `FailureCallbackMessage` on callback routes. Pass a key to inject one field.
 *
 * @example
 * @Post(orderPlaced.path)
 * @OnMessage(orderPlaced)
 * placed(@ReceivedMessage() message: ReceivedMessage<BodyOf<typeof orderPlaced>>) {
 *   return { id: message.body.orderId, attempt: message.retried };
 * }
 */
export const ReceivedMessage: (key?: ReceivedMessageKey) => ParameterDecorator = createParamDecorator(receivedMessageFactory, [
  recordReceivedMessageParam,
]);

/** A delivered message as a handler sees it; the same type as `ReceivedMessage` of `@mailroom/core`. */
export type ReceivedMessage<T = unknown> = CoreReceivedMessage<T>;
