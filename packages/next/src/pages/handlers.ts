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
import type { ApiHandler } from './api-handler';
import { createMailroom } from './create-mailroom';

/**
 * A Pages Router API route for one typed destination. It reads the request stream itself, so the
 * route must turn Next.js's body parser off; when it is on, every request answers 500 saying so.
 *
 * @example
 * // pages/api/orders.ts
 * import { destination } from '@mailroom/next/pages';
 *
 * export const config = { api: { bodyParser: false } };
 * export default destination(orderPlaced, async (message) => {
 *   await orders.save(message.body); // typed by orderPlaced's schema
 * });
 */
export function destination<D extends DestinationDefinition>(
  definition: D,
  handler: MessageHandler<BodyOf<D>>,
  options?: ReceiverOptions,
): ApiHandler {
  return createMailroom(options).destination(definition, handler);
}

/**
 * A Pages Router API route for callbacks, called after every delivery attempt; `body` and
 * `sourceBody` arrive decoded (bytes, text and schema-checked data).
 *
 * @example
 * // pages/api/callbacks.ts
 * import { callback } from '@mailroom/next/pages';
 *
 * export const config = { api: { bodyParser: false } };
 * export default callback((message) => console.log(message.status, message.sourceBody.text));
 */
export function callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
  handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
  options: CallbackHandlerOptions<S, R> = {},
): ApiHandler {
  const { source, response, ...receiverOptions } = options;
  return createMailroom(receiverOptions).callback(handler, { source, response });
}

/**
 * A Pages Router API route for failure callbacks, called once a message failed for good.
 *
 * @example
 * // pages/api/failures.ts
 * import { failureCallback } from '@mailroom/next/pages';
 *
 * export const config = { api: { bodyParser: false } };
 * export default failureCallback((message) => alert(message.dlqId), { source: orderPlaced });
 */
export function failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
  handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
  options: CallbackHandlerOptions<S, R> = {},
): ApiHandler {
  const { source, response, ...receiverOptions } = options;
  return createMailroom(receiverOptions).failureCallback(handler, { source, response });
}
