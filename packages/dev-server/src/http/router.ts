import type { IncomingMessage } from 'node:http';
import { HttpError, type Reply } from './exchange';
import type { DevCredentials } from '../credentials';
import type { Engine } from '../engine/create-engine';
import type { EngineConfig } from '../settings';
import type { Scheduler } from '../engine/scheduler';
import type { EventBus } from '../events';
import type { PlanLimits } from '../plans';
import type { Store } from '../state/store';

/**
 * Who may call a route: `messaging` takes either token (the read-only one for GETs only),
 * `full-token` refuses the read-only token even for a GET (it answers a secret that lets one write),
 * `management` takes Basic credentials, `public` nothing (a webhook: its unguessable URL is the key).
 */
type RouteAuth = 'messaging' | 'full-token' | 'management' | 'public';

/** One matched request, as handlers see it. */
export interface RouteRequest {
  req: IncomingMessage;
  method: string;
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
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
  rest: string;
  query: URLSearchParams;
}

/**
 * Finds the route of a request target, or throws 404 (no such path) / 405 (path known, method not).
 * Matching is on the raw target: `%2F` inside a name stays inside that name.
 */
export function matchRoute(routes: readonly Route[], method: string, target: string): RouteMatch {
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
  if (pathMatched) throw new HttpError(405, `method ${method} not allowed on ${path}`);
  throw new HttpError(404, `no such endpoint: ${method} ${path}`);
}

function checkQuery(route: Route, query: URLSearchParams, path: string): void {
  const known = route.query!;
  for (const name of query.keys()) {
    if (!known.includes(name)) {
      throw new HttpError(
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
    throw new HttpError(400, `malformed percent-encoding in path segment ${JSON.stringify(segment)}`);
  }
}

/** What every HTTP handler works with: one object, built once by `startDevServer`. */
export interface ServerContext {
  store: Store;
  engine: Engine;
  scheduler: Scheduler;
  events: EventBus;
  credentials: DevCredentials;
  plan: PlanLimits;
  config: EngineConfig;
}
