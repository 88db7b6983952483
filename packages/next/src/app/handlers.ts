import type {
  BodyOf,
  CallbackMessage,
  DestinationDefinition,
  FailureCallbackMessage,
  MessageHandler,
  ReceiverOptions,
  SchemaOutput,
} from '@mailroom/core';
import type { CallbackHandlerOptions, ResponseSchema, SourceSchema } from '../options';
import { createMailroom } from './create-mailroom';
import type { RouteHandler } from './route-handler';

/**
 * An App Router route handler for one typed destination: verifies the signature over the exact
 * bytes, validates the body with the definition's schema and calls `handler` with the typed message.
 * Keys come from `options` or `MAILROOM_CURRENT_SIGNING_KEY` / `MAILROOM_NEXT_SIGNING_KEY`.
 *
 * @example
 * // app/api/orders/route.ts
 * import { destination } from '@mailroom/next';
 *
 * export const POST = destination(orderPlaced, async (message) => {
 *   await orders.save(message.body); // typed by orderPlaced's schema
 * });
 */
export function destination<D extends DestinationDefinition>(
  definition: D,
  handler: MessageHandler<BodyOf<D>>,
  options?: ReceiverOptions,
): RouteHandler {
  return createMailroom(options).destination(definition, handler);
}

/**
 * An App Router route handler for callbacks, called after every delivery attempt; `body` and
 * `sourceBody` arrive decoded (bytes, text and schema-checked data).
 *
 * @example
 * // app/api/callbacks/route.ts
 * import { callback } from '@mailroom/next';
 *
 * export const POST = callback((message) => {
 *   if (message.isFinalAttempt) console.log('last attempt for', message.sourceBody.data.orderId);
 * }, { source: orderPlaced });
 */
export function callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
  handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
  options: CallbackHandlerOptions<S, R> = {},
): RouteHandler {
  const { source, response, ...receiverOptions } = options;
  return createMailroom(receiverOptions).callback(handler, { source, response });
}

/**
 * An App Router route handler for failure callbacks, called once a message failed for good, with its
 * DLQ id and the decoded original body.
 *
 * @example
 * // app/api/failures/route.ts
 * import { failureCallback } from '@mailroom/next';
 *
 * export const POST = failureCallback((message) => alert(message.dlqId), { source: orderPlaced });
 */
export function failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
  handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
  options: CallbackHandlerOptions<S, R> = {},
): RouteHandler {
  const { source, response, ...receiverOptions } = options;
  return createMailroom(receiverOptions).failureCallback(handler, { source, response });
}
