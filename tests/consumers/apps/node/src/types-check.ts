// Every public subpath, type-checked under this app's moduleResolution. A subpath that did not
// resolve, or resolved to `any`, turns the @ts-expect-error lines below into errors.
import {
  createMessagingClient,
  defineDestination,
  ValidationError,
  type CallbackMessage,
  type FailureCallbackMessage,
} from '@mailroom/core';
import { captureRawBody } from '@mailroom/core';
import { handleNodeRequest } from '@mailroom/core/adapter';
import { signRequest } from '@mailroom/core/testing';
import { createUndiciTransport } from '@mailroom/core/undici';
import { captureRawBody as expressCapture, createMailroom, type ExpressOptions } from '@mailroom/adapters/express';
import { z } from 'zod';

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
const client = createMessagingClient({ baseUrl: 'http://127.0.0.1:8288', token: 't' });
// @ts-expect-error the payload is typed by the definition
void client.send(orderPlaced, { orderId: 1 });
// @ts-expect-error url is a string
void signRequest({ url: 5, body: '' });
// @ts-expect-error not a transport option
createUndiciTransport({ connections: 'many' });
// @ts-expect-error takes Node's (req, res, buffer)
captureRawBody();
// @ts-expect-error the same function, through the Express package's own .d.ts
expressCapture();
// @ts-expect-error an endpoint is required
void handleNodeRequest();
const options: ExpressOptions = { forwardErrors: true };
// @ts-expect-error a boolean
createMailroom({ forwardErrors: 'yes' });
createMailroom(options);

export function onFailure(message: FailureCallbackMessage<{ orderId: string }>): string {
  // The service always sends a dlqId with a failure callback.
  const id: string = message.dlqId;
  // A source body that broke its schema still arrives: branch on `valid`.
  return message.sourceBody.valid ? `${id}: ${message.sourceBody.data.orderId}` : `${id}: ${message.sourceBody.text}`;
}

export function onCallback(message: CallbackMessage<{ orderId: string }>): boolean {
  // @ts-expect-error data may be undefined until `valid` is checked
  void message.sourceBody.data.orderId;
  return message.isFinalAttempt;
}

export const isValidationError = (error: unknown): boolean => error instanceof ValidationError;
