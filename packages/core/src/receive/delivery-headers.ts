import { resolveHeaderPrefix } from '../config';
import type { HeaderPrefixOptions } from '../enqueue-headers';
import { headerNames } from '../wire';

/** What the service says about a delivery in its own headers: every field a handler's message carries. */
export interface DeliveryFields {
  /** `<Prefix>-Message-Id`: stable across retries, so it is the key for idempotent handling. */
  messageId: string | undefined;
  /** `<Prefix>-Retried`: 0 on the first attempt. */
  retried: number;
  /** `<Prefix>-Topic-Name` when the message was sent to a URL group. */
  topicName: string | undefined;
  /** `<Prefix>-Schedule-Id` when the message came from a schedule. */
  scheduleId: string | undefined;
  /** `<Prefix>-Caller-Ip`: who published the message. */
  callerIp: string | undefined;
  /** `<Prefix>-Workflow-RunId` for workflow messages. */
  workflowRunId: string | undefined;
  /** `<Prefix>-Workflow-Url` for workflow messages. */
  workflowUrl: string | undefined;
  /** `<Prefix>-Region` as sent (`eu-central-1`), when the delivery names one: its keys verify it. */
  region: string | undefined;
  contentType: string | undefined;
}

/** A delivery's headers, read once: the service's fields, the signature, and the records built on demand. */
export interface DeliveryHeaders {
  readonly fields: DeliveryFields;
  /** `<Prefix>-Signature`, for the verifier. */
  readonly signature: string | undefined;
  /** Every header by lower-case name; built on first read. */
  readonly all: Record<string, string>;
  /** The headers the sender forwarded; built on first read. */
  readonly forwarded: Record<string, string>;
}

/** Reads one delivery's headers; see {@link deliveryHeaderReader}. */
export type DeliveryHeaderReader = (headers: HeaderLookup) => DeliveryHeaders;

// Headers that belong to the HTTP exchange rather than to the message: a handler asking for
// "what the sender forwarded" must not see them.
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'accept-encoding',
  'content-type',
  'user-agent',
  'proxy-connection',
  'proxy-authorization',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-real-ip',
  'forwarded',
  'via',
]);

/**
 * Splits a delivery's headers into the service's fields and the forwarded ones, for one header
 * prefix (the names are built once per receiver, not per request). The service delivers
 * `<Prefix>-Forward-X: v` as `X: v`, so forwarded headers are whatever is neither the service's
 * (`<Prefix>-*`) nor the transport's; a still-prefixed `<Prefix>-Forward-X` is stripped too.
 *
 * The typed fields are read in one pass over the headers. The two records (`all`, `forwarded`) are
 * built from the same snapshot only when first read: they are most of this step's work, and most
 * handlers never look.
 */
export function deliveryHeaderReader(headerPrefix: string): DeliveryHeaderReader {
  const wire = headerNames(headerPrefix);
  const prefix = `${headerPrefix.toLowerCase()}-`;
  const forwardPrefix = wire.delivery.forwardPrefix.toLowerCase();
  // Header lookups compare lower-case names; the wire table and the fields share their keys.
  const signatureName = wire.signature.toLowerCase();
  const retriedName = wire.retried.toLowerCase();
  const fieldOf = new Map<string, TextField>(TEXT_FIELDS.map((field) => [wire[field].toLowerCase(), field]));

  return (headers) => {
    const entries = headerEntries(headers);
    // Every field present from the start, so every delivery's object has the same shape.
    const fields: DeliveryFields = {
      messageId: undefined,
      retried: 0,
      topicName: undefined,
      scheduleId: undefined,
      callerIp: undefined,
      workflowRunId: undefined,
      workflowUrl: undefined,
      region: undefined,
      contentType: undefined,
    };
    let signature: string | undefined;
    // A later header of the same name wins, as it does in Object.fromEntries (the `all` record).
    for (const [name, value] of entries) {
      if (name === 'content-type') fields.contentType = value;
      else if (name.startsWith(prefix)) {
        if (name === signatureName) signature = value;
        else if (name === retriedName) {
          const count = Number(value);
          fields.retried = Number.isSafeInteger(count) && count >= 0 ? count : 0;
        } else {
          const field = fieldOf.get(name);
          if (field !== undefined) fields[field] = value;
        }
      }
    }
    return new Delivery(entries, prefix, forwardPrefix, fields, signature);
  };
}

/** The fields read straight from a `<Prefix>-*` header of the same key in the wire table. */
const TEXT_FIELDS = ['messageId', 'topicName', 'scheduleId', 'callerIp', 'workflowRunId', 'workflowUrl', 'region'] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/**
 * A class, not an object literal with getters: a literal's accessors are built again for every
 * delivery, a class keeps them once on its prototype.
 */
class Delivery implements DeliveryHeaders {
  #all: Record<string, string> | undefined;
  #forwarded: Record<string, string> | undefined;

  constructor(
    private readonly entries: ReadonlyArray<[string, string]>,
    private readonly prefix: string,
    private readonly forwardPrefix: string,
    readonly fields: DeliveryFields,
    readonly signature: string | undefined,
  ) {}

  // fromEntries defines own properties: a header named `__proto__` stays a header instead of
  // reaching the prototype setter.
  get all(): Record<string, string> {
    return (this.#all ??= Object.fromEntries(this.entries));
  }

  get forwarded(): Record<string, string> {
    return (this.#forwarded ??= Object.fromEntries(forwardedEntries(this.entries, this.prefix, this.forwardPrefix)));
  }
}

function forwardedEntries(entries: ReadonlyArray<[string, string]>, prefix: string, forwardPrefix: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const entry of entries) {
    const name = entry[0];
    if (name.startsWith(forwardPrefix)) {
      if (name.length > forwardPrefix.length) out.push([name.slice(forwardPrefix.length), entry[1]]);
    } else if (!name.startsWith(prefix) && !TRANSPORT_HEADERS.has(name)) {
      out.push(entry);
    }
  }
  return out;
}

/**
 * Headers as frameworks hand them to us: a Web `Headers`, Node's `IncomingHttpHeaders` (lower-case
 * keys, arrays for repeated headers) or a plain record in any letter case.
 */
export type HeaderLookup = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Every header as `[lower-case name, value]`, repeated values joined the way HTTP folds them. */
function headerEntries(headers: HeaderLookup): Array<[string, string]> {
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    const out: Array<[string, string]> = [];
    (headers as Headers).forEach((value, name) => {
      out.push([name, value]);
    });
    return out;
  }
  // Object.keys and an index loop rather than Object.entries: no intermediate pair per header, which
  // made this a measurable part of every delivery. Own keys only, like Object.entries.
  const record = headers as Record<string, unknown>;
  const names = Object.keys(record);
  const out: Array<[string, string]> = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = record[name];
    if (value === undefined || value === null) continue;
    out.push([name.toLowerCase(), typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : String(value)]);
  }
  return out;
}

/**
 * The destination's view of the forwarded headers: every `<Prefix>-Forward-X: v` becomes `X: v`
 * (names lower-cased, as HTTP treats them), and nothing else passes: not the service's own headers,
 * and not `<Prefix>-Callback-Forward-*`, which are meant for the callback.
 *
 * @example
 * forwardedHeaders({ 'Service-Forward-X-Tenant': 'acme', 'Service-Retries': '3' })
 * // { 'x-tenant': 'acme' }
 */
export function forwardedHeaders(headers: HeaderLookup, settings: HeaderPrefixOptions = {}): Record<string, string> {
  const marker = headerNames(resolveHeaderPrefix(settings.headerPrefix)).delivery.forwardPrefix.toLowerCase();
  const out: Array<[string, string]> = [];
  for (const [name, value] of headerEntries(headers)) {
    if (name.startsWith(marker) && name.length > marker.length) out.push([name.slice(marker.length), value]);
  }
  // fromEntries defines own properties, so a header named `__proto__` is kept like any other instead
  // of being swallowed by the prototype setter.
  return Object.fromEntries(out);
}
