import {
  createReceiver,
  type BodyOf,
  type CallbackMessage,
  type CallbackOptions,
  type DestinationDefinition,
  type FailureCallbackMessage,
  type MessageHandler,
  type Receiver,
  type ReceiverOptions,
  type SchemaOutput,
} from '@mailroom/core';
import type { MailroomRequestHandler } from './request-handler';
import type { ResponseSchema, SourceSchema } from './options';
import { serveEndpoint } from './serve-endpoint';

/** The three handler factories, sharing one set of receiver settings. */
export interface ExpressMailroom {
  /**
   * A route handler for a typed destination: the handler gets the schema's output as `message.body`.
   *
   * @example
   * app.post(orderPlaced.path, mailroom.destination(orderPlaced, async (message) => save(message.body)));
   */
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>>): MailroomRequestHandler;
  /**
   * A route handler for callbacks, called by the service after every delivery attempt.
   *
   * @example
   * app.post('/callbacks', mailroom.callback((m) => log(m.status, m.sourceBody.data), { source: orderPlaced }));
   */
  callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): MailroomRequestHandler;
  /**
   * A route handler for failure callbacks, called once delivery failed for good.
   *
   * @example
   * app.post('/failures', mailroom.failureCallback((m) => alert(m.dlqId, m.sourceBody.data), { source: orderPlaced }));
   */
  failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): MailroomRequestHandler;
  /** The core receiver behind these handlers, for custom glue. */
  readonly receiver: Receiver;
}

/**
 * Binds receiver settings (signing keys, header prefix, `publicUrl`, body limit) once for every
 * handler of an app. Settings not given fall back to their `MAILROOM_*` variables.
 *
 * @example
 * import express from 'express';
 * import { createMailroom } from '@mailroom/express';
 *
 * const mailroom = createMailroom({ publicUrl: 'https://app.example.com' });
 * const app = express();
 * app.post(orderPlaced.path, mailroom.destination(orderPlaced, (message) => save(message.body)));
 * app.post('/callbacks', mailroom.callback((message) => log(message.status)));
 */
export function createMailroom(options: ReceiverOptions = {}): ExpressMailroom {
  // One receiver at definition time: keys are resolved and checked once, not on every request.
  const receiver = createReceiver(options);
  return {
    destination: (definition, handler) => serveEndpoint(receiver.destination(definition, handler)),
    callback: (handler, callbackOptions) => serveEndpoint(receiver.callback(handler, callbackOptions)),
    failureCallback: (handler, callbackOptions) => serveEndpoint(receiver.failureCallback(handler, callbackOptions)),
    receiver,
  };
}
