import { badRequest, type ServiceError } from '../errors';

// One grammar for every query a route takes (the filters of listings and bulk actions, and the few
// settings given in a query), read in one place for every route: the query, and for a bulk action a
// JSON body too (the SDKs up to qstash-js 2.9 and every Workflow SDK send `{"messageIds": [...]}`,
// `{"workflowRunIds": [...]}`). A filter that is accepted is honoured; an unknown name, an empty or
// blank value, or a value of the wrong form is a 400 naming it: none of them may read as "everything".

/** How a value must look. */
type Form = 'word' | 'milliseconds' | 'count' | 'status' | 'boolean' | 'cursor' | { oneOf: readonly string[] };

const CALLBACK_STATES = ['CALLBACK_INPROGRESS', 'CALLBACK_SUCCESS', 'CALLBACK_FAIL', 'CALLBACK_CANCELED'] as const;

/** The form of every query name any route takes; a route naming one missing here fails the generated test. */
export const QUERY_FORMS: Readonly<Record<string, Form>> = {
  fromDate: 'milliseconds',
  toDate: 'milliseconds',
  workflowCreatedAt: 'milliseconds',
  from: 'milliseconds',
  to: 'milliseconds',
  count: 'count',
  cursor: 'cursor',
  responseStatus: 'status',
  async: 'boolean',
  workflowUrlExactMatch: 'boolean',
  steps: 'boolean',
  cancel: 'boolean',
  source: { oneOf: ['workflow', 'message'] },
  groupBy: { oneOf: ['workflowRunId'] },
  failureCallbackState: { oneOf: CALLBACK_STATES },
  failureFunctionState: { oneOf: CALLBACK_STATES },
  state: 'word',
  workflowState: 'word',
  period: 'word',
  parallelism: 'word',
  rate: 'word',
  callerIp: 'word',
  callerIP: 'word',
  label: 'word',
  flowControlKey: 'word',
  url: 'word',
  topicName: 'word',
  urlGroup: 'word',
  scheduleId: 'word',
  queueName: 'word',
  host: 'word',
  path: 'word',
  messageId: 'word',
  messageIds: 'word',
  dlqIds: 'word',
  workflowRunId: 'word',
  workflowRunIds: 'word',
  workflowUrl: 'word',
  api: 'word',
  queue: 'word',
  text: 'word',
  run: 'word',
};

/** Names that change how another filter matches: alone they would read as no filter at all. */
const MODIFIES: Readonly<Record<string, string>> = { workflowUrlExactMatch: 'workflowUrl' };

/** Names that shape an answer (paging, running in the background) rather than choose what it acts on. */
const NOT_FILTERS = new Set(['count', 'cursor', 'async']);

/** The query names a route takes, or `'not-read'`: the query is another's (a `*` route's destination, a webhook's caller). */
export type QueryNames = readonly string[] | 'not-read';

/** The filters of one request, checked; read with the same calls as `URLSearchParams`. */
export class Filters {
  readonly #values: Map<string, string[]>;

  constructor(values: Map<string, string[]> = new Map()) {
    this.#values = values;
  }

  get(name: string): string | null {
    return this.#values.get(name)?.[0] ?? null;
  }

  getAll(name: string): string[] {
    return this.#values.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  /** The filters as given, for a bulk action's history. */
  described(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [name, values] of this.#values) if (!NOT_FILTERS.has(name)) out[name] = [...values];
    return out;
  }
}

/**
 * Reads and checks a route's query (and, for a bulk action, its JSON body) against the names it
 * takes. `where` names the route in every refusal.
 */
export function readFilters(names: readonly string[], query: URLSearchParams, body: unknown, where: string): Filters {
  const values = new Map<string, string[]>();
  const add = (name: string, value: string) => {
    if (!names.includes(name)) {
      throw badRequest(
        `unknown filter ${JSON.stringify(name)} for ${where}: a misspelt filter would otherwise match everything; use ${names.join(', ')}`,
      );
    }
    const checked = checkValue(name, value, where);
    if (checked === undefined) return;
    const list = values.get(name);
    if (list) list.push(checked);
    else values.set(name, [checked]);
  };
  for (const [name, value] of query) add(name, value);
  if (body !== undefined) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest(`invalid body for ${where}: expected a JSON object of filters, like {"${names[0] ?? 'ids'}": [...]}`);
    }
    for (const [name, value] of Object.entries(body)) {
      const items = Array.isArray(value) ? value : [value];
      if (items.length === 0) throw emptyFilter(name, where);
      for (const item of items) {
        if (typeof item === 'string') add(name, item);
        else if (typeof item === 'number' && Number.isFinite(item)) add(name, String(item));
        else if (typeof item === 'boolean') add(name, String(item));
        else throw badRequest(`invalid ${name} in the body of ${where}: expected a string, a number or a list of them`);
      }
    }
  }
  for (const [modifier, modified] of Object.entries(MODIFIES)) {
    if (values.has(modifier) && !values.has(modified)) {
      throw badRequest(`${modifier} for ${where} changes how ${modified} matches: give ${modified} too`);
    }
  }
  return new Filters(values);
}

const emptyFilter = (name: string, where: string): ServiceError =>
  badRequest(
    `empty filter ${JSON.stringify(name)} for ${where}: give it a value, or leave it out (a request with no filter at all is the one that acts on everything)`,
  );

// Control characters never belong in a filter value (a name, an id, a URL).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The value as the route reads it, `undefined` for an empty cursor (the first page), or a 400. */
function checkValue(name: string, value: string, where: string): string | undefined {
  const form = QUERY_FORMS[name];
  if (form === 'cursor') return value === '' ? undefined : value;
  if (value.trim() === '') throw emptyFilter(name, where);
  const wrong = (expected: string) => badRequest(`invalid ${name} ${JSON.stringify(value)} for ${where}: expected ${expected}`);
  if (CONTROL.test(value)) throw wrong('a value without control characters');
  switch (form) {
    case 'milliseconds':
      if (!/^\d{1,15}$/.test(value)) throw wrong('Unix milliseconds');
      return value;
    case 'count':
      if (!/^\d{1,16}$/.test(value) || Number(value) < 1) throw wrong('a whole number from 1');
      return value;
    case 'status':
      // Any three digits: a status no answer had (the SDKs' own tests send 999) names nothing.
      if (!/^\d{3}$/.test(value)) throw wrong('an HTTP status code');
      return value;
    case 'boolean':
      if (value !== 'true' && value !== 'false') throw wrong('true or false');
      return value;
    case 'word':
      return value.trim();
    case undefined:
      throw badRequest(`${where} names a query parameter ${JSON.stringify(name)} with no form: a bug in the dev server`);
    default: {
      if (!form.oneOf.includes(value)) throw wrong(form.oneOf.map((option) => JSON.stringify(option)).join(' or '));
      return value;
    }
  }
}
