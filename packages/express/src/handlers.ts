import type {
  BodyOf,
  CallbackMessage,
  DestinationDefinition,
  FailureCallbackMessage,
  MessageHandler,
  ReceiverOptions,
  SchemaOutput,
} from '@mailroom/core';
import type { MailroomRequestHandler } from './request-handler';
import { createMailroom } from './create-mailroom';
import type { CallbackHandlerOptions, ResponseSchema, SourceSchema } from './options';

/**
 * A route handler for one typed destination. Verifies the signature over the exact bytes, validates
 * the body with the definition's schema and calls `handler` with the typed message. Keys come from
 * `options` or `MAILROOM_CURRENT_SIGNING_KEY` / `MAILROOM_NEXT_SIGNING_KEY`.
 *
 * @example
 * import { destination } from '@mailroom/express';
 *
 * app.post(orderPlaced.path, destination(orderPlaced, async (message) => {
 *   await orders.save(message.body); // typed by orderPlaced's schema
 * }));
 */
export function destination<D extends DestinationDefinition>(
  definition: D,
  handler: MessageHandler<BodyOf<D>>,
  options?: ReceiverOptions,
): MailroomRequestHandler {
  return createMailroom(options).destination(definition, handler);
}

/**
 * A route handler for callbacks: the service calls it after every delivery attempt with the
 * attempt's outcome; `body` and `sourceBody` arrive decoded (bytes, text and schema-checked data).
 *
 * @example
 * import { callback } from '@mailroom/express';
 *
 * app.post('/callbacks', callback((message) => {
 *   if (message.isFinalAttempt) metrics.count('delivery.final', message.status);
 * }, { source: orderPlaced }));
 */
export function callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
  handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
  options: CallbackHandlerOptions<S, R> = {},
): MailroomRequestHandler {
  const { source, response, ...receiverOptions } = options;
  return createMailroom(receiverOptions).callback(handler, { source, response });
}

/**
 * A route handler for failure callbacks: the service calls it once a message failed for good, with
 * its DLQ id and the decoded original body.
 *
 * @example
 * import { failureCallback } from '@mailroom/express';
 *
 * app.post('/failures', failureCallback((message) => {
 *   alerts.send(`order ${message.sourceBody.data.orderId} is in the DLQ as ${message.dlqId}`);
 * }, { source: orderPlaced }));
 */
export function failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
  handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
  options: CallbackHandlerOptions<S, R> = {},
): MailroomRequestHandler {
  const { source, response, ...receiverOptions } = options;
  return createMailroom(receiverOptions).failureCallback(handler, { source, response });
}
