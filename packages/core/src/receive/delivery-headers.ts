import { resolveHeaderPrefix } from '../config';
import type { HeaderPrefixOptions } from '../enqueue-headers';
import { headerNames } from '../wire';

/** The service's own headers on a delivery, read once into typed fields. */
export interface DeliveryHeaders {
  /** Every header by lower-case name; built on first read. */
  readonly all: Record<string, string>;
  signature: string | undefined;
  messageId: string | undefined;
  retried: number;
  topicName: string | undefined;
  scheduleId: string | undefined;
  callerIp: string | undefined;
  workflowRunId: string | undefined;
  workflowUrl: string | undefined;
  /** `<Prefix>-Region` as sent (`eu-central-1`), when the delivery names one. */
  region: string | undefined;
  contentType: string | undefined;
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
  // Header lookups compare lower-case names.
  const names = {
    signature: wire.signature.toLowerCase(),
    messageId: wire.messageId.toLowerCase(),
    retried: wire.retried.toLowerCase(),
    topicName: wire.topicName.toLowerCase(),
    scheduleId: wire.scheduleId.toLowerCase(),
    callerIp: wire.callerIp.toLowerCase(),
    workflowRunId: wire.workflowRunId.toLowerCase(),
    workflowUrl: wire.workflowUrl.toLowerCase(),
    region: wire.region.toLowerCase(),
  };

  return (headers) => {
    const entries = headerEntries(headers);
    let signature: string | undefined;
    let messageId: string | undefined;
    let retried: string | undefined;
    let topicName: string | undefined;
    let scheduleId: string | undefined;
    let callerIp: string | undefined;
    let workflowRunId: string | undefined;
    let workflowUrl: string | undefined;
    let region: string | undefined;
    let contentType: string | undefined;
    // A later header of the same name wins, as it does in Object.fromEntries (the `all` record).
    for (const [name, value] of entries) {
      if (name === 'content-type') contentType = value;
      else if (name.startsWith(prefix)) {
        if (name === names.signature) signature = value;
        else if (name === names.messageId) messageId = value;
        else if (name === names.retried) retried = value;
        else if (name === names.topicName) topicName = value;
        else if (name === names.scheduleId) scheduleId = value;
        else if (name === names.callerIp) callerIp = value;
        else if (name === names.workflowRunId) workflowRunId = value;
        else if (name === names.workflowUrl) workflowUrl = value;
        else if (name === names.region) region = value;
      }
    }
    const retriedCount = Number(retried ?? '0');
    return new Delivery(entries, prefix, forwardPrefix, {
      signature,
      messageId,
      retried: Number.isSafeInteger(retriedCount) && retriedCount >= 0 ? retriedCount : 0,
      topicName,
      scheduleId,
      callerIp,
      workflowRunId,
      workflowUrl,
      region,
      contentType,
    });
  };
}

type DeliveryFields = Omit<DeliveryHeaders, 'all' | 'forwarded'>;

/**
 * A class, not an object literal with getters: a literal's accessors are built again for every
 * delivery, a class keeps them once on its prototype.
 */
class Delivery implements DeliveryHeaders {
  signature: string | undefined;
  messageId: string | undefined;
  retried: number;
  topicName: string | undefined;
  scheduleId: string | undefined;
  callerIp: string | undefined;
  workflowRunId: string | undefined;
  workflowUrl: string | undefined;
  region: string | undefined;
  contentType: string | undefined;
  #all: Record<string, string> | undefined;
  #forwarded: Record<string, string> | undefined;

  constructor(
    private readonly entries: ReadonlyArray<[string, string]>,
    private readonly prefix: string,
    private readonly forwardPrefix: string,
    fields: DeliveryFields,
  ) {
    this.signature = fields.signature;
    this.messageId = fields.messageId;
    this.retried = fields.retried;
    this.topicName = fields.topicName;
    this.scheduleId = fields.scheduleId;
    this.callerIp = fields.callerIp;
    this.workflowRunId = fields.workflowRunId;
    this.workflowUrl = fields.workflowUrl;
    this.region = fields.region;
    this.contentType = fields.contentType;
  }

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
