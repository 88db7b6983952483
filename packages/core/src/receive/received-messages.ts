import { SchemaValidationError, isDestinationDefinition, type DestinationDefinition } from '../contract';
import { InvalidBodyError } from '../errors';
import { attemptEnding } from '../wire';
import type { DeliveryFields, DeliveryHeaders } from './delivery-headers';
import type { CallbackBody, FailureCallbackBody } from '../schemas';
import type { VerifiedSignature } from '../signature';
import type { MaybePromise } from '../maybe-promise';
import type { IdempotencyOption } from '../idempotency/guard';
import type { TracedDelivery } from '../tracing/hooks';
import type { StandardSchemaV1 } from '@standard-schema/spec';

const decoder = new TextDecoder();
// JSON text is UTF-8 (RFC 8259 section 8.1). Decoding it leniently would hand the handler U+FFFD in
// place of the bytes that were sent, and a message that can never be read right must go to the DLQ.
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** `application/json`, `application/cloudevents+json`, `text/json`: anything whose subtype is JSON. */
function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // What the service sends for JSON, answered without splitting and lower-casing a copy.
  if (contentType === 'application/json') return true;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || essence === 'text/json' || essence.endsWith('+json');
}

/** UTF-8 text of the body; invalid sequences become U+FFFD rather than an error (the bytes stay exact). */
function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * The body as the handler's schema will see it: parsed JSON for JSON content types (an empty body is
 * `undefined`), the text otherwise. Only JSON content types are parsed, so a text body that happens
 * to look like JSON stays text.
 */
export function parseBody(bytes: Uint8Array, contentType: string | undefined): unknown {
  if (!isJsonContentType(contentType)) return decodeText(bytes);
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = strictDecoder.decode(bytes);
  } catch (cause) {
    throw new InvalidBodyError(`The body is declared as ${contentType} but is not valid UTF-8, which JSON must be.`, { cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidBodyError(`The body is declared as ${contentType} but is not valid JSON.`, { cause });
  }
}

/**
 * A delivered message as a handler sees it. `T` is the body type the destination's schema gives.
 * `headers`, `forwardedHeaders` and `text` live on its prototype (built only when read), so read
 * them by name: `{ ...message }` leaves them out, `JSON.stringify(message)` keeps the headers.
 */
export interface ReceivedMessage<T = unknown> extends DeliveryFields {
  /** The parsed body: the schema's output, the parsed JSON, or the text for other content types. */
  body: T;
  /** The exact bytes received. */
  rawBody: Uint8Array;
  /** The body decoded as UTF-8. */
  text(): string;
  /** The headers the sender forwarded, under their own (lower-case) names; no service or transport headers. */
  forwardedHeaders: Record<string, string>;
  /** Every request header, lower-case names. */
  headers: Record<string, string>;
  method: string;
  url: string | undefined;
  /** The verified claims and which key matched; `undefined` only with `verify: false`. */
  signature: VerifiedSignature | undefined;
}

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
  /** Handle each callback once however often it is delivered (or `false` to opt out of the receiver's default). */
  idempotency?: IdempotencyOption | false;
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

/** Whether no attempt follows the one a callback reports on: the wire's one rule. */
function isFinalAttempt(payload: CallbackBody, headerPrefix: string): boolean {
  const { status, header, retried, maxRetries } = payload;
  return attemptEnding({ status, headers: header, retried, maxRetries }, headerPrefix) !== undefined;
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
function decodeBase64(encoded: string, subject: string): Uint8Array {
  const clean = encoded.replace(/\s+/g, '');
  if (!BASE64.test(clean) || clean.length % 4 === 1) throw new InvalidBodyError(`The ${subject} is not valid base64.`);
  const binary = atob(clean.padEnd(Math.ceil(clean.length / 4) * 4, '='));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * `validateWithSchema` for the receiving pipeline: the same checks and error, but a synchronous
 * schema (zod, valibot) answers synchronously instead of through an async function's promise.
 */
export function validateBody<T>(schema: StandardSchemaV1<unknown, T>, value: unknown): MaybePromise<T> {
  const result = schema['~standard'].validate(value);
  return result instanceof Promise ? result.then(outputOf) : outputOf(result);
}

function outputOf<T>(result: StandardSchemaV1.Result<T>): T {
  if (result.issues) throw new SchemaValidationError('body', result.issues);
  return result.value;
}

/** A verified delivery as tracing describes it; `source` for a callback: the message it reports on. */
export function tracedDelivery(
  kind: TracedDelivery['kind'],
  destination: string | undefined,
  message: ReceivedMessage<unknown>,
  source?: Pick<CallbackBody, 'sourceMessageId' | 'sourceHeader'>,
): TracedDelivery {
  return {
    kind,
    destination: destination ?? pathOf(message.url),
    messageId: message.messageId,
    retried: message.retried,
    forwarded: () => message.forwardedHeaders,
    ...(source ? { sourceMessageId: source.sourceMessageId, ...(source.sourceHeader ? { sourceHeaders: source.sourceHeader } : {}) } : {}),
  };
}

/** The path a delivery arrived at, without its query (which may carry a secret). */
function pathOf(url: string | undefined): string {
  if (url === undefined) return 'unknown';
  const path = url.split('?', 1)[0]!;
  return /^https?:\/\//i.test(path) ? path.replace(/^https?:\/\/[^/]*/i, '') || '/' : path;
}

/**
 * The handler's view of a delivery. A class, not a literal with accessors (those are built again for
 * every delivery): `headers` and `forwardedHeaders` read through to the delivery's records, which are
 * only built when a handler first looks at them, and a handler may still replace them.
 */
// The class declares the delivery's fields through this interface, so they are defined once
// (DeliveryFields); the constructor copies them in with Object.assign.
// biome-ignore lint/correctness/noUnusedVariables: merged into the class below, which is its user.
interface Message<T> extends DeliveryFields {}
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every merged field (Object.assign).
class Message<T> implements ReceivedMessage<T> {
  url: string | undefined;
  #delivery: DeliveryHeaders;
  #headers: Record<string, string> | undefined;
  #forwardedHeaders: Record<string, string> | undefined;

  constructor(
    public body: T,
    public rawBody: Uint8Array,
    public method: string,
    url: string | undefined,
    delivery: DeliveryHeaders,
    public signature: VerifiedSignature | undefined,
  ) {
    Object.assign(this, delivery.fields);
    this.url = url;
    this.#delivery = delivery;
  }

  text(): string {
    return decodeText(this.rawBody);
  }

  get forwardedHeaders(): Record<string, string> {
    return (this.#forwardedHeaders ??= this.#delivery.forwarded);
  }
  set forwardedHeaders(value: Record<string, string>) {
    this.#forwardedHeaders = value;
  }
  get headers(): Record<string, string> {
    return (this.#headers ??= this.#delivery.all);
  }
  set headers(value: Record<string, string>) {
    this.#headers = value;
  }

  /** Logging a message (`JSON.stringify`) shows its headers too, as it would for plain data. */
  toJSON(): Omit<ReceivedMessage<T>, 'text'> {
    const { text: _method, ...fields } = this;
    return { ...fields, headers: this.headers, forwardedHeaders: this.forwardedHeaders };
  }
}

/** What a verified delivery's handler gets. */
export function receivedMessage<T>(
  body: T,
  rawBody: Uint8Array,
  method: string,
  url: string | undefined,
  delivery: DeliveryHeaders,
  signature: VerifiedSignature | undefined,
): ReceivedMessage<T> {
  return new Message(body, rawBody, method, url, delivery, signature);
}
