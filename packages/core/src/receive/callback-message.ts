import type { StandardSchemaV1 } from '@standard-schema/spec';
import { isDestinationDefinition, type DestinationDefinition } from '../contract/define-destination';
import { InvalidBodyError } from '../errors/receive-errors';
import type { CallbackBody, FailureCallbackBody } from '../schemas';
import { headerNames } from '../protocol/header-names';
import { NON_RETRYABLE_STATUS } from './error-response';
import { decodeText } from './parse-body';
import type { ReceivedMessage } from './received-message';

/**
 * A base64 field of a callback, decoded. A schema that rejects the body never refuses the callback
 * (the callback exists to report on that very message): `valid` tells the two cases apart.
 */
export type DecodedBody<T = unknown> = {
  bytes: Uint8Array;
  text: string;
} & (
  | {
      /** True when no schema was given or the schema accepted the body. */
      valid: true;
      /** The schema's output when a schema was given; otherwise the parsed JSON, or `undefined` if it is not JSON. */
      data: T;
    }
  | {
      /** The schema rejected the body; `text` holds it and `issues` says why. */
      valid: false;
      data: undefined;
      issues: ReadonlyArray<StandardSchemaV1.Issue>;
    }
);

/**
 * The known fields of a loose (unknown-keys-kept) object without `K`. A plain `Omit` would go through
 * the index signature and turn every known field into `unknown`.
 */
type KnownFieldsWithout<T, K extends PropertyKey> = {
  [P in keyof T as P extends K ? never : string extends P ? never : number extends P ? never : P]: T[P];
};

/** What a callback handler receives: the service's callback fields, with both bodies decoded. */
export type CallbackMessage<TSource = unknown, TResponse = unknown> = KnownFieldsWithout<CallbackBody, 'body' | 'sourceBody'> & {
  /** The destination's answer to the attempt this callback reports. */
  body: DecodedBody<TResponse>;
  /** The message that was delivered. */
  sourceBody: DecodedBody<TSource>;
  /**
   * True when no retry will follow: the attempt succeeded (2xx), was refused for good (489 with the
   * non-retryable header), or was the last one (`retried >= maxRetries`).
   */
  isFinalAttempt: boolean;
  /** The signed request that carried this callback. */
  delivery: ReceivedMessage<unknown>;
};

/** What a failure-callback handler receives: the callback fields plus `dlqId` and the workflow fields. */
export type FailureCallbackMessage<TSource = unknown, TResponse = unknown> = KnownFieldsWithout<
  FailureCallbackBody,
  'body' | 'sourceBody' | 'dlqId'
> & {
  /** The DLQ entry of the failed message, for listing, retrying or deleting it. */
  dlqId: string;
  body: DecodedBody<TResponse>;
  sourceBody: DecodedBody<TSource>;
  isFinalAttempt: true;
  delivery: ReceivedMessage<unknown>;
};

/** Schemas for the two bodies a callback carries; a destination definition stands for its schema. */
export interface CallbackOptions<
  S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined,
  R extends StandardSchemaV1 | undefined = undefined,
> {
  /** Schema of the original message (`sourceBody`), or the destination it was sent to. */
  source?: S;
  /** Schema of the destination's answer (`body`). */
  response?: R;
}

/** The output type of an optional schema or definition; `unknown` without one. */
export type SchemaOutput<S> =
  S extends DestinationDefinition<infer Inner>
    ? StandardSchemaV1.InferOutput<Inner>
    : S extends StandardSchemaV1
      ? StandardSchemaV1.InferOutput<S>
      : unknown;

/** Decodes `body` and `sourceBody` and assembles the handler's view. */
export async function toCallbackMessage(
  payload: CallbackBody | FailureCallbackBody,
  delivery: ReceivedMessage<unknown>,
  options: CallbackOptions<StandardSchemaV1 | DestinationDefinition | undefined, StandardSchemaV1 | undefined>,
  failure: boolean,
  headerPrefix: string,
): Promise<CallbackMessage & FailureCallbackMessage> {
  const { body, sourceBody, ...fields } = payload;
  const sourceSchema = isDestinationDefinition(options.source) ? options.source.schema : options.source;
  return {
    ...fields,
    body: await decodeField(body, options.response, 'callback response body'),
    sourceBody: await decodeField(sourceBody, sourceSchema as StandardSchemaV1 | undefined, 'callback source body'),
    isFinalAttempt: (failure || isFinalAttempt(payload, headerPrefix)) as true,
    delivery,
  } as CallbackMessage & FailureCallbackMessage;
}

/**
 * No attempt follows a 2xx, a 489 marked non-retryable, or the last retry. Without a status (a
 * timeout) only the retry count can tell.
 */
export function isFinalAttempt(payload: CallbackBody, headerPrefix: string): boolean {
  const { status, retried, maxRetries } = payload;
  if (status !== undefined && status >= 200 && status < 300) return true;
  if (status === NON_RETRYABLE_STATUS && headerValue(payload.header, headerNames(headerPrefix).nonRetryableError)?.toLowerCase() === 'true')
    return true;
  return retried !== undefined && maxRetries !== undefined && retried >= maxRetries;
}

function headerValue(headers: Record<string, string[]> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const key of Object.keys(headers)) if (key.toLowerCase() === wanted) return headers[key]?.[0];
  return undefined;
}

async function decodeField(encoded: string | undefined, schema: StandardSchemaV1 | undefined, subject: string): Promise<DecodedBody> {
  const bytes = decodeBase64(encoded ?? '', subject);
  const text = decodeText(bytes);
  const json = tryJson(text);
  if (!schema) return { bytes, text, valid: true, data: json };
  let result = schema['~standard'].validate(json);
  if (result instanceof Promise) result = await result;
  if (result.issues) return { bytes, text, valid: false, data: undefined, issues: result.issues };
  return { bytes, text, valid: true, data: result.value };
}

function tryJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard base64 as the service writes it; malformed input is a permanent failure, not a crash. */
export function decodeBase64(encoded: string, subject: string): Uint8Array {
  const clean = encoded.replace(/\s+/g, '');
  if (!BASE64.test(clean) || clean.length % 4 === 1) throw new InvalidBodyError(`The ${subject} is not valid base64.`);
  const binary = atob(clean.padEnd(Math.ceil(clean.length / 4) * 4, '='));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
