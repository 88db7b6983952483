import { parseDuration } from '@mailroom/core/internal-protocol';
import { badRequest, notFound, ServiceError } from '../errors';
import { randomHex } from '../ids';
import type { FaultInput, FaultKind, FaultRecord } from '../state/records';
import type { Store } from '../state/store';

// Faults on demand: what the real service does now and then (a duplicate delivery, an answer lost
// after the handler ran, a 429 to the sender), or what cannot be made to happen against it (a token
// signed by a skewed clock), made to happen here. The same rules serve `mailroom dev` (CLI, console,
// `/dev/faults`) and `@mailroom/testing`; they are state, so `--data-dir` keeps them and their counts.

export const FAULT_KINDS: readonly FaultKind[] = ['duplicate', 'lose-answer', 'throttle', 'skew-clock'];

/** The faults in force, and what the engine's edges ask of them. */
export interface Faults {
  /**
   * Sets a fault (400 naming what is wrong with `input`); `committed` settles once it is journaled.
   * `unlessInForce`: the same fault already in force is kept instead (a restart with the same `--fault`).
   */
  set(input: FaultInput, options?: { unlessInForce?: boolean }): { fault: FaultRecord; committed: Promise<void> };
  /** Removes one fault (404 when there is none of that id). */
  remove(id: string): Promise<void>;
  clear(): Promise<void>;
  list(): FaultRecord[];
  /** Whether a delivery to `url` is hit by a `duplicate` or `lose-answer` fault; counted when it is. */
  take(kind: 'duplicate' | 'lose-answer', url: string): boolean;
  /** The skew in ms for a token signed now for `url` (counted when a fault applies). */
  skewMs(url: string): number;
  /** Throws the throttling refusal (429/503 with `Retry-After`) for a sending call while one is in force. */
  refuseIfThrottled(): void;
}

export function createFaults(store: Store, now: () => number): Faults {
  const { state } = store;
  // Durability of a count is not waited for: a restart at worst applies a fault once more.
  const commitQuietly = (id: string): void => void store.commit({ type: 'fault.applied', id }).catch(() => {});

  const apply = (kind: FaultKind, url: string | undefined): FaultRecord | undefined => {
    for (const fault of state.faults.values()) {
      if (fault.kind !== kind || (fault.times !== undefined && fault.count >= fault.times)) continue;
      if (url !== undefined && !matches(fault.to, url)) continue;
      commitQuietly(fault.id);
      return fault;
    }
    return undefined;
  };

  return {
    set(input, options = {}) {
      const fault = checkFault(input, now());
      const same = options.unlessInForce ? [...state.faults.values()].find((kept) => sameRule(kept, fault)) : undefined;
      if (same) return { fault: { ...same }, committed: Promise.resolve() };
      const committed = store.commit({ type: 'fault.set', fault });
      return { fault: { ...fault }, committed };
    },
    async remove(id) {
      if (!state.faults.has(id)) throw notFound(`fault ${id} not found: list them with GET /dev/faults`);
      await store.commit({ type: 'fault.removed', id });
    },
    async clear() {
      if (state.faults.size > 0) await store.commit({ type: 'fault.removed', id: '*' });
    },
    list: () => [...state.faults.values()].map((fault) => ({ ...fault })),
    take: (kind, url) => apply(kind, url) !== undefined,
    skewMs: (url) => apply('skew-clock', url)?.skewMs ?? 0,
    refuseIfThrottled() {
      const fault = apply('throttle', undefined);
      if (!fault) return;
      throw new ServiceError(fault.status ?? 429, `throttled by fault ${fault.id}, set on this server (faults on demand)`, {
        'Retry-After': String(fault.retryAfterSeconds ?? 1),
      });
    },
  };
}

const RULE_FIELDS = ['kind', 'to', 'times', 'status', 'retryAfterSeconds', 'skewMs'] as const;
const sameRule = (a: FaultRecord, b: FaultRecord): boolean => RULE_FIELDS.every((field) => a[field] === b[field]);

/** A URL matches a whole URL exactly, or a path starting with `/` by its path. */
function matches(to: string | undefined, url: string): boolean {
  if (to === undefined) return true;
  if (to.startsWith('/')) return new URL(url).pathname === to;
  return url === to;
}

// Bounds a fault stays within: beyond them it can only be a mistake (a skew of centuries, a
// throttle that outlives the test, a count no run reaches), and a value that large breaks the clock.
const MAX_TIMES = 1_000_000;
const MAX_RETRY_AFTER_SECONDS = 86_400;
const MAX_SKEW_SECONDS = 365 * 86_400;

function checkFault(input: FaultInput, now: number): FaultRecord {
  if (input === null || typeof input !== 'object')
    throw badRequest('a fault is an object: { kind, to?, times?, status?, retryAfter?, by? }');
  const { kind } = input;
  if (!FAULT_KINDS.includes(kind)) throw badRequest(`unknown fault kind ${JSON.stringify(kind)}: use one of ${FAULT_KINDS.join(', ')}`);
  const fault: FaultRecord = { id: `flt_${randomHex(6)}`, kind, count: 0, createdAt: now };
  if (input.to !== undefined) {
    if (kind === 'throttle') throw badRequest('a throttle fault answers the sender, not a destination: leave out "to"');
    if (typeof input.to !== 'string' || !(input.to.startsWith('/') || (/^https?:\/\//i.test(input.to) && URL.canParse(input.to)))) {
      throw badRequest(`invalid fault target ${JSON.stringify(input.to)}: give an http:// or https:// URL, or a path starting with "/"`);
    }
    fault.to = input.to;
  }
  if (input.times !== undefined) {
    if (!Number.isSafeInteger(input.times) || input.times < 1 || input.times > MAX_TIMES) {
      throw badRequest(
        `invalid fault times ${JSON.stringify(input.times)}: give a whole number from 1 to ${MAX_TIMES.toLocaleString('en')}, or leave it out for "until removed"`,
      );
    }
    fault.times = input.times;
  }
  if (kind === 'throttle') {
    const status = input.status ?? 429;
    if (status !== 429 && status !== 503) throw badRequest(`invalid throttle status ${JSON.stringify(status)}: use 429 or 503`);
    fault.status = status;
    fault.retryAfterSeconds = seconds('retryAfter', input.retryAfter ?? 1, MAX_RETRY_AFTER_SECONDS, 'a day');
  } else if (input.status !== undefined || input.retryAfter !== undefined) {
    throw badRequest('status and retryAfter belong to a throttle fault');
  }
  if (kind === 'skew-clock') {
    if (input.by === undefined) throw badRequest('a skew-clock fault needs "by": how far off the signing clock is, "10m" or "-10m"');
    if (typeof input.by !== 'string' && typeof input.by !== 'number') {
      throw badRequest(`invalid by ${JSON.stringify(input.by)}: give a duration like "10m" or "-10m"`);
    }
    const negative = typeof input.by === 'string' ? input.by.startsWith('-') : input.by < 0;
    const magnitude = typeof input.by === 'string' ? input.by.replace(/^-/, '') : Math.abs(input.by);
    fault.skewMs = (negative ? -1 : 1) * seconds('by', magnitude, MAX_SKEW_SECONDS, 'a year') * 1000;
  } else if (input.by !== undefined) {
    throw badRequest('"by" belongs to a skew-clock fault');
  }
  return fault;
}

/** A duration (`30`, `30s`, `10m`, `1h`) in seconds, at most `max` (said as `bound`), or 400 naming the field and the bound. */
function seconds(field: string, value: unknown, max: number, bound: string): number {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw badRequest(`invalid ${field} ${JSON.stringify(value)}: give a duration like "30s" or "10m"`);
  }
  let parsed: number;
  try {
    parsed = parseDuration(field, (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value) as never);
  } catch (error) {
    throw badRequest(error instanceof Error ? error.message : `invalid ${field}`);
  }
  if (!(parsed <= max)) throw badRequest(`invalid ${field} ${JSON.stringify(value)}: at most ${bound} (${max} seconds)`);
  return parsed;
}
