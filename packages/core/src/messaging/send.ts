import type { DestinationDefinition, PayloadOf } from '../contract/define-destination';
import { isDestinationDefinition } from '../contract/define-destination';
import { validateWithSchema } from '../contract/validate-with-schema';
import { ValidationError } from '../errors/validation-error';
import type { EnqueueOptions } from '../headers/enqueue-options';
import { enqueueJSON, type EnqueueResult } from './enqueue';
import type { MessagingContext } from './messaging-context';

/** Settings of a typed send: every enqueue option, plus where the definition's path is served. */
export interface SendOptions extends Omit<EnqueueOptions, 'contentType'> {
  /** Queue to enqueue on. Default: the definition's name, so each destination keeps its own order. */
  queue?: string;
  /** Full URL of the receiving endpoint; default `appUrl` (or `MAILROOM_APP_URL`) joined with `def.path`. */
  url?: string;
  signal?: AbortSignal;
}

/**
 * Enqueues a payload for a typed destination. The payload is checked against the definition's schema
 * before anything is sent, so a message the receiver would reject with 489 never leaves the process.
 *
 * @example await client.send(orderPlaced, { orderId: 'o1', total: 12 }, { retries: 3 })
 */
export async function send<D extends DestinationDefinition>(
  context: MessagingContext,
  definition: D,
  payload: PayloadOf<D>,
  options: SendOptions = {},
): Promise<EnqueueResult> {
  if (!isDestinationDefinition(definition)) {
    throw new ValidationError('definition', 'expected a destination made with defineDestination({ name, schema })');
  }
  await validateWithSchema(definition.schema, payload, 'payload');
  const { queue, url, ...rest } = options;
  const destination = url ?? endpointUrl(context, definition);
  return (await enqueueJSON(context, { ...rest, queue: queue ?? definition.name, destination, body: payload })) as EnqueueResult;
}

function endpointUrl(context: MessagingContext, definition: DestinationDefinition): string {
  if (context.appUrl === undefined) {
    throw new ValidationError(
      'url',
      `cannot tell where "${definition.name}" is served: pass { url } to send(), or set appUrl on the client (or MAILROOM_APP_URL) to the public base URL of the receiving app`,
    );
  }
  return context.appUrl.replace(/\/+$/, '') + definition.path;
}
