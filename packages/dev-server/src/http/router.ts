// The neutral edge of the service: a request whatever carried it (a socket, or an in-process
// client), the route table's matching and access rules, and the reply a route answers.
import { badRequest, ServiceError } from '../errors';
import type { DevCredentials } from '../credentials';
import { checkManagementAuth, checkMessagingAuth, type MessagingAccess, redactSecrets } from './auth';

/** One request to the service. */
export interface ServiceRequest {
  method: string;
  /** Path and query exactly as sent. */
  target: string;
  /** Lower-case names; a repeated header's values joined with `, ` (Node's rule). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** `[name, value, ...]` as sent. */
  rawHeaders: readonly string[];
  /** The sender's address, without the IPv4-mapped IPv6 prefix Node reports on dual-stack sockets. */
  callerIp: string;
  /**
   * The whole body, refused beyond `limit` bytes with `tooLarge()`: a declared length over it before a
   * byte is read, and reading stops at the limit, so a huge body cannot exhaust memory.
   */
  body(limit: number, tooLarge: () => ServiceError): Promise<Buffer>;
}

/** A JSON body (1 MiB at most), `undefined` when empty, or 400 naming what is wrong. */
export async function readJson(request: ServiceRequest): Promise<unknown> {
  const body = await request.body(1_048_576, () => badRequest('request body too large'));
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

/** A JSON value, or nothing (200 with an empty body, as the service does for writes). */
export interface Reply {
  status?: number;
  json?: unknown;
  headers?: Record<string, string>;
}

/** A 200 with a JSON body. */
export const json = (value: unknown): Reply => ({ json: value });
/** A 200 with an empty body. */
export const empty = (): Reply => ({});

/** The bytes of a reply: what a socket gets, and what an in-process client gets. */
export function replyBody(reply: Reply): string {
  return reply.json === undefined ? '' : JSON.stringify(reply.json);
}

/** A reply's headers, `Content-Type` and `Content-Length` included. */
export function replyHeaders(reply: Reply, body: string): Record<string, string> {
  // Built by assignment rather than spreads: this runs for every enqueue.
  const headers: Record<string, string> = {};
  if (reply.json !== undefined) headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(body));
  if (reply.headers) Object.assign(headers, reply.headers);
  return headers;
}

/** `{"error": message}` with `status`. */
export const errorReply = (status: number, message: string, headers: Record<string, string> = {}): Reply => ({
  status,
  json: { error: message },
  headers,
});

/**
 * Who may call a route: `messaging` takes either token (the read-only one for GETs only),
 * `full-token` refuses the read-only token even for a GET (it answers a secret that lets one write),
 * `management` takes Basic credentials, `public` nothing (a webhook: its unguessable URL is the key).
 */
type RouteAuth = 'messaging' | 'full-token' | 'management' | 'public';

/** One matched request, as handlers see it. */
export interface RouteRequest extends ServiceRequest {
  /** Decoded `:name` segments of the pattern. */
  params: Record<string, string>;
  /**
   * For a pattern ending in `*`: the rest of the request target exactly as sent, undecoded and with
   * its query, so a URL destination arrives verbatim (`https://app.test/hook?a=1`).
   */
  rest: string;
  query: URLSearchParams;
}

type RouteHandler = (request: RouteRequest) => Promise<Reply> | Reply;

/** A route: method, a path pattern (`/v2/topics/:name/endpoints`, `/v2/enqueue/:queue/*`) and its handler. */
export interface Route {
  method: string;
  path: string;
  auth: RouteAuth;
  /**
   * The query parameters it takes (a listing's or bulk action's filters): any other name is refused
   * with 400, so a misspelt filter never reads as "no filter". Absent: the query is not checked.
   */
  query?: readonly string[];
  /** A sending call (publish, enqueue, batch, a new schedule): refused while a throttle fault is in force. */
  sends?: true;
  handler: RouteHandler;
}

/** A found route with its parameters. */
interface RouteMatch {
  route: Route;
  params: Record<string, string>;
  rest: string;
  query: URLSearchParams;
}

/**
 * Finds the route of a request target, or throws 404 (no such path) / 405 (path known, method not).
 * Matching is on the raw target: `%2F` inside a name stays inside that name.
 */
function matchRoute(routes: readonly Route[], method: string, target: string): RouteMatch {
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1));
  const given = path.split('/').slice(1);
  let pathMatched = false;
  for (const route of routes) {
    const found = matchPattern(route.path, given, target);
    if (!found) continue;
    pathMatched = true;
    if (route.method !== method) continue;
    if (route.query) checkQuery(route, query, path);
    return { route, params: found.params, rest: found.rest, query };
  }
  if (pathMatched) throw new ServiceError(405, `method ${method} not allowed on ${path}`);
  throw new ServiceError(404, `no such endpoint: ${method} ${path}`);
}

function checkQuery(route: Route, query: URLSearchParams, path: string): void {
  const known = route.query!;
  for (const name of query.keys()) {
    if (!known.includes(name)) {
      throw new ServiceError(
        400,
        `unknown filter ${JSON.stringify(name)} for ${route.method} ${path}: a misspelt filter would otherwise match everything; use ${known.join(', ')}`,
      );
    }
  }
}

/** A pattern split once: every request is matched against every route until one fits. */
interface CompiledPattern {
  fixed: string[];
  wildcard: boolean;
}

const compiled = new Map<string, CompiledPattern>();

function compile(pattern: string): CompiledPattern {
  let found = compiled.get(pattern);
  if (!found) {
    const wanted = pattern.split('/').slice(1);
    const wildcard = wanted.at(-1) === '*';
    found = { fixed: wildcard ? wanted.slice(0, -1) : wanted, wildcard };
    compiled.set(pattern, found);
  }
  return found;
}

function matchPattern(
  pattern: string,
  given: readonly string[],
  target: string,
): { params: Record<string, string>; rest: string } | undefined {
  const { fixed, wildcard } = compile(pattern);
  if (wildcard ? given.length <= fixed.length : given.length !== fixed.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < fixed.length; index += 1) {
    const part = fixed[index]!;
    const segment = given[index]!;
    if (part.startsWith(':')) {
      if (segment === '') return undefined;
      params[part.slice(1)] = decodeSegment(segment);
    } else if (part !== segment) {
      return undefined;
    }
  }
  if (!wildcard) return { params, rest: '' };
  const consumed = `/${given.slice(0, fixed.length).join('/')}/`;
  const rest = target.slice(consumed.length);
  return rest === '' ? undefined : { params, rest };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ServiceError(400, `malformed percent-encoding in path segment ${JSON.stringify(segment)}`);
  }
}

/** What answering a request needs besides its route: who may call, and what the read-only token must not see. */
export interface Answering {
  routes: readonly Route[];
  credentials: DevCredentials;
  /** Values answers to the read-only token never show (webhook event ids: holding one lets anyone write). */
  readOnlySecrets: () => readonly string[];
  /** Throws the throttling refusal while a throttle fault is in force (before a sending route runs). */
  refuseIfThrottled: () => void;
}

/**
 * Answers one request with the route table: its route, its auth, its handler, every refusal as
 * `{"error": "..."}`. What a socket and an in-process client both get; anything but a
 * `ServiceError` is a bug and is thrown on.
 */
export async function answerRequest(answering: Answering, request: ServiceRequest): Promise<Reply> {
  try {
    const match = matchRoute(answering.routes, request.method, request.target);
    let access: MessagingAccess | undefined;
    if (match.route.auth === 'management') checkManagementAuth(request.headers.authorization, answering.credentials);
    else if (match.route.auth !== 'public') {
      access = checkMessagingAuth(request.method, request.headers.authorization, answering.credentials, match.route.auth === 'full-token');
    }
    if (match.route.sends) answering.refuseIfThrottled();
    const reply = await match.route.handler({ ...request, params: match.params, rest: match.rest, query: match.query });
    if (access === 'read-only' && reply.json !== undefined) reply.json = redactSecrets(reply.json, answering.readOnlySecrets());
    return reply;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return errorReply(error.status, error.message, error.headers);
  }
}
