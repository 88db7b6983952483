import { ServiceError } from '../errors';
import type { DevCredentials } from '../credentials';
import { checkManagementAuth, checkMessagingAuth, type MessagingAccess, redactSecrets } from './auth';
import { errorReply, type Reply } from './reply';
import type { ServiceRequest } from './request';

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
    const reply = await match.route.handler({ ...request, params: match.params, rest: match.rest, query: match.query });
    if (access === 'read-only' && reply.json !== undefined) reply.json = redactSecrets(reply.json, answering.readOnlySecrets());
    return reply;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return errorReply(error.status, error.message, error.headers);
  }
}
