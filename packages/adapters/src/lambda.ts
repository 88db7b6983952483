// @mailroom/adapters/lambda: AWS Lambda handlers for HTTP events: API Gateway REST APIs (payload 1.0),
// HTTP APIs and function URLs (payload 2.0), and Application Load Balancers. An event is data, so the
// adapter only translates it into the pipeline's request and the answer into the result Lambda expects.
import { STATUS_CODES } from 'node:http';
import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import { bindReceiver, type AdapterHandlers, type Endpoint, type InboundRequest, type OutboundResponse } from '@mailroom/core/adapter';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

type Values<T> = Record<string, T | undefined> | null | undefined;

/** An API Gateway REST API event (payload 1.0), or an ALB event (`requestContext.elb`). */
export interface RestApiEvent {
  httpMethod: string;
  /** The resource path, without the stage (`/orders`); `requestContext.path` has it (`/prod/orders`). */
  path: string;
  headers?: Values<string>;
  multiValueHeaders?: Values<string[]>;
  queryStringParameters?: Values<string>;
  multiValueQueryStringParameters?: Values<string[]>;
  requestContext?: { path?: string; stage?: string; elb?: unknown } | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}

/** An API Gateway HTTP API or function URL event (payload 2.0). */
export interface HttpApiEvent {
  version: '2.0';
  /** The path as the client sent it, a named stage included (`/prod/orders`). */
  rawPath: string;
  rawQueryString?: string;
  /** Lower-case names; repeated headers joined with commas. */
  headers?: Values<string>;
  cookies?: string[];
  requestContext: { http: { method: string } };
  body?: string;
  isBase64Encoded?: boolean;
}

export type LambdaHttpEvent = RestApiEvent | HttpApiEvent;

/** What the handler returns: the shape of the event's integration (headers as they came in). */
export interface LambdaHttpResult {
  statusCode: number;
  /** ALB only: `200 OK`. */
  statusDescription?: string;
  headers?: Record<string, string>;
  /** When the event came with `multiValueHeaders` (an ALB with multi-value headers turned on needs them back). */
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

/** The handler's second argument: the event and Lambda's context object. */
export interface LambdaDelivery {
  event: LambdaHttpEvent;
  context: unknown;
}

/** A Lambda handler: `export const handler = mailroom.destination(...)`. */
export type LambdaHandler = (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>;

/** The pipeline's request, from an event of any of the four shapes. */
function inboundOf(event: LambdaHttpEvent, context: unknown): InboundRequest {
  if (event === null || typeof event !== 'object') throw notAnHttpEvent(event);
  const rawBody = bodyOf(event.body, event.isBase64Encoded === true);
  const delivery: LambdaDelivery = { event, context };
  if ('version' in event && event.version === '2.0') {
    if (typeof event.rawPath !== 'string' || typeof event.requestContext?.http?.method !== 'string') throw notAnHttpEvent(event);
    const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
    return {
      method: event.requestContext.http.method,
      url: `${event.rawPath}${query}`,
      headers: joined(event.headers),
      rawBody,
      context: delivery,
    };
  }
  const rest = event as RestApiEvent;
  if (typeof rest.httpMethod !== 'string' || typeof rest.path !== 'string') throw notAnHttpEvent(event);
  const isAlb = rest.requestContext?.elb !== undefined;
  // A REST API's `path` leaves out the stage the token was signed with; `requestContext.path` is the
  // path the client called (stage, or a custom domain's base path, included).
  const path = !isAlb && typeof rest.requestContext?.path === 'string' ? rest.requestContext.path : rest.path;
  const headers = rest.multiValueHeaders ? joinedLists(rest.multiValueHeaders) : joined(rest.headers);
  return { method: rest.httpMethod, url: `${path}${queryOf(rest, isAlb)}`, headers, rawBody, context: delivery };
}

function notAnHttpEvent(event: unknown): ValidationError {
  const shape = event === null || typeof event !== 'object' ? typeof event : `an object with ${Object.keys(event).slice(0, 5).join(', ')}`;
  return new ValidationError(
    'event',
    `expected an HTTP event (API Gateway REST or HTTP API, a function URL, or an ALB), got ${shape}. Mailroom delivers over HTTP: point the destination URL at the API or function URL that invokes this handler`,
  );
}

/** The bytes the service sent: base64 when Lambda marked them so, else the UTF-8 text API Gateway passed. */
function bodyOf(body: string | null | undefined, base64: boolean): Uint8Array {
  if (body === null || body === undefined) return new Uint8Array(0);
  return base64 ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

/**
 * The query the client sent. REST APIs hand parameters decoded, so they are encoded again; an ALB
 * hands them as received. The token is bound to the path; the query matters only with `publicUrl`.
 */
function queryOf(event: RestApiEvent, isAlb: boolean): string {
  const encode = isAlb ? (text: string) => text : encodeURIComponent;
  const pairs: string[] = [];
  if (event.multiValueQueryStringParameters) {
    for (const [name, values] of Object.entries(event.multiValueQueryStringParameters))
      for (const value of values ?? []) pairs.push(`${encode(name)}=${encode(value)}`);
  } else if (event.queryStringParameters) {
    for (const [name, value] of Object.entries(event.queryStringParameters))
      if (value !== undefined) pairs.push(`${encode(name)}=${encode(value)}`);
  }
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

function joined(headers: Values<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

function joinedLists(headers: Values<string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(headers ?? {})) if (values !== undefined) out[name.toLowerCase()] = values.join(', ');
  return out;
}

/** The answer in the event's own shape: multi-value headers back when they came so, a status line for an ALB. */
function resultOf(event: LambdaHttpEvent, answer: OutboundResponse): LambdaHttpResult {
  const rest = event as RestApiEvent;
  const result: LambdaHttpResult = { statusCode: answer.status, body: answer.body, isBase64Encoded: false };
  if (rest.requestContext?.elb !== undefined) result.statusDescription = `${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trim();
  if (rest.multiValueHeaders)
    result.multiValueHeaders = Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, [value]]));
  else result.headers = answer.headers;
  return result;
}

// An event that is not an HTTP one (an SQS batch, a console test event) is a wiring mistake: it
// rejects with what to do, as there is no HTTP answer to give.
function toLambdaHandler(endpoint: Endpoint): LambdaHandler {
  return async (event, context) => resultOf(event, await endpoint.handle(inboundOf(event, context)));
}

/** `destination`, `callback` and `failureCallback` Lambda handlers sharing one receiver; handlers get the message and `{ event, context }`. */
export type LambdaMailroom = AdapterHandlers<LambdaHandler, LambdaDelivery>;

/**
 * Binds receiver settings once per function (keys from the options or `MAILROOM_*` environment
 * variables). Behind a custom domain whose path differs from the one Lambda sees, set `publicUrl`.
 *
 * @example
 * import { createMailroom } from '@mailroom/adapters/lambda';
 *
 * export const handler = createMailroom().destination(orderPlaced, async (message, { context }) => {
 *   await save(message.body);
 * });
 */
export function createMailroom(options: ReceiverOptions = {}): LambdaMailroom {
  return bindReceiver<LambdaHandler, ReceiverOptions, LambdaDelivery>(options, toLambdaHandler);
}
