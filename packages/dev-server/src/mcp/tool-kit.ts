import { z } from 'zod';
import { QUERY_FORMS } from '../http/filters';

// How a tool is made: each one is a call of a route of the route table, made in-process with the
// caller's own token. The route decides who may call it (the read-only token is refused or shown
// secrets hidden there, as over HTTP), checks the query with the filter grammar, and answers; the
// tool only names it, shapes the input and summarises. The tools themselves are in tools.ts.

/** What a tool sends to its route. */
interface ToolCall {
  method: string;
  /** Path and query, as sent. */
  target: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What a tool's route answered, as its summary reads it. */
export interface ToolAnswer {
  status: number;
  json: unknown;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** `METHOD /pattern` of the route it calls: the route's own access rule decides who may list it. */
  route: string;
  /** Path parameters and a body's fields; the route's filters are added to them (`filtersOf`). */
  input: z.ZodRawShape;
  /** Whether the tool takes the route's filters, as the route reads them. */
  filters: boolean;
  /** The call, without its query (the filters among `args` are added to it). */
  call(args: Record<string, unknown>, context: { headerPrefix: string }): ToolCall;
  /** One line a model reads first; the data follows it. */
  summary(answer: ToolAnswer): string;
}

type Form = (typeof QUERY_FORMS)[string];

/** The zod type of a filter, from the one grammar every route reads its query with. */
function filterSchema(name: string): z.ZodType {
  const form: Form | undefined = QUERY_FORMS[name];
  if (form === undefined) throw new Error(`no form for the filter ${name}`);
  const one =
    typeof form === 'object'
      ? z.enum(form.oneOf as [string, ...string[]])
      : form === 'milliseconds'
        ? z.number().int().nonnegative().describe('Unix milliseconds')
        : form === 'count'
          ? z.number().int().positive()
          : form === 'status'
            ? z.number().int().min(100).max(599)
            : form === 'boolean'
              ? z.boolean()
              : z.string().min(1);
  // Names ending in Ids take several values, as the routes do (`?dlqIds=a&dlqIds=b`).
  return (name.endsWith('Ids') ? z.array(one).min(1) : one).optional();
}

// Deprecated or duplicate spellings the routes still read for old SDKs: not offered to a model.
const NOT_OFFERED = new Set(['api', 'callerIP']);

/** The filters a tool offers: those its route reads, but old spellings. */
export function offeredFilters(routeQuery: readonly string[]): string[] {
  return routeQuery.filter((name) => !NOT_OFFERED.has(name));
}

/** The input fields for the filters `names`, each optional and checked again by the route. */
export function filtersInput(names: readonly string[]): z.ZodRawShape {
  return Object.fromEntries(names.map((name) => [name, filterSchema(name)]));
}

/** The query string of the filters among `args`, in the route's spelling. */
export function queryOf(args: Record<string, unknown>, names: readonly string[]): string {
  const query = new URLSearchParams();
  for (const name of names) {
    const value = args[name];
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) query.append(name, String(each));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

export const id = (what: string) => z.string().min(1).describe(what);
export const path = (pattern: string, args: Record<string, unknown>) =>
  pattern.replace(/:([A-Za-z]+)/g, (_whole, name: string) => encodeURIComponent(String(args[name])));
export const count = (json: unknown, field: string) => {
  const list = (json as Record<string, unknown> | undefined)?.[field];
  return Array.isArray(list) ? list.length : 0;
};
const cursorOf = (json: unknown) => (json as { cursor?: unknown } | undefined)?.cursor;
export const paged = (noun: string, field: string) => (answer: ToolAnswer) => {
  const cursor = cursorOf(answer.json);
  return `${count(answer.json, field)} ${noun}${cursor ? `; more with cursor ${JSON.stringify(cursor)}` : ''}`;
};

/** A tool without a body: `route` (`METHOD /pattern`) with its path parameters, and its filters when `filters`. */
export function calling(
  name: string,
  title: string,
  description: string,
  route: string,
  params: z.ZodRawShape,
  filters: boolean,
  summary: McpTool['summary'],
): McpTool {
  const [method = 'GET', pattern = '/'] = route.split(' ');
  return { name, title, description, route, input: params, filters, call: (args) => ({ method, target: path(pattern, args) }), summary };
}

export const listed = (noun: string) => (answer: ToolAnswer) => `${Array.isArray(answer.json) ? answer.json.length : 0} ${noun}`;
export const done = (what: string) => (answer: ToolAnswer) => (answer.status < 300 ? what : `refused (${answer.status})`);
export const bulk = (what: string) => (answer: ToolAnswer) => {
  const { total, actionId, cursor } = (answer.json ?? {}) as { total?: number; actionId?: string; cursor?: string };
  if (actionId !== undefined) return `${what} ${total ?? 0} in the background (bulk action ${actionId})`;
  return `${what}${cursor ? `; more remain, cursor ${JSON.stringify(cursor)}` : ''}`;
};
