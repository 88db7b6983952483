import { MailroomError, ValidationError } from '@mailroom/core';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { mersenne } from 'pure-rand/generator/mersenne';
import type { Attempt } from './recording';
import type { TestServiceOptions } from './settings';
import { startTestService, type TestService } from './test-service';

// One scenario under many delivery schedules. The service may legitimately deliver a message more
// than once, lose the answer to an attempt whose handler ran (a timeout, a crash after the side
// effect), deliver messages in flight together in another order, sign by a clock a few seconds off,
// and answer a sender 429 or 503 now and then: a handler or a sender that is only right when none of
// that happens is wrong. Each run draws, from its seed, what the service does at each of its
// decision points; a failing run is shrunk to the fewest decisions that still fail, and named.

/** How likely the service is to use each freedom at each decision point (0 to 1). */
export interface Freedoms {
  /** Each attempt is delivered twice (each copy signed on its own, as the service's duplicates are). Default 0.1. */
  duplicate?: number;
  /** The answer to an attempt is lost after the handler ran, so the service retries it. Default 0.1. */
  loseAnswer?: number;
  /** An attempt reaches the app after the deliveries started with it (no order among messages in flight together, outside a queue). Default 0.1. */
  reorder?: number;
  /** An attempt's token is signed by a clock 3 s ahead (within receivers' default 5 s tolerance). Default 0.1. */
  skewClock?: number;
  /** A sending call of the code under test is answered 429 with `Retry-After: 1`. Default 0: opt in to test a sender. */
  throttle?: number;
  /** A sending call of the code under test is answered 503 with `Retry-After: 1` (the service briefly unavailable). Default 0: opt in. */
  unavailable?: number;
}

/** The options of {@link explore}: a test service's, and how to explore. */
export interface ExploreOptions extends TestServiceOptions {
  /** How many schedules to run. Default 100. */
  runs?: number;
  /** The first run's seed (run `i` uses `seed + i`). Default: drawn at random, and named when a run fails. */
  seed?: number;
  /** Replays one schedule exactly, as a failure names it (`'d2 l5'`): `seed` and `runs` are then ignored. */
  schedule?: string;
  freedoms?: Freedoms;
  /** Most runs spent shrinking a failing schedule. Default 50. */
  maxShrinks?: number;
}

/** What a passing exploration did. */
export interface ExploreReport {
  runs: number;
  firstSeed: number;
  /** How often each freedom was used, over all runs. */
  used: { duplicate: number; loseAnswer: number; reorder: number; skewClock: number; throttle: number; unavailable: number };
}

/** A scenario failed under some schedule: its message names the seed, the shrunk schedule in words, and how to replay it. */
export class ExploreError extends MailroomError {
  override name = 'ExploreError';
  readonly seed: number;
  /** The shrunk schedule, as `explore({ schedule })` takes it. */
  readonly schedule: string;

  constructor(init: { seed: number; schedule: string; story: string; cause: unknown }) {
    const reason = init.cause instanceof Error ? init.cause.message : String(init.cause);
    super(
      'EXPLORE_FAILED',
      `seed ${init.seed}: ${init.story}\n  ${reason.split('\n')[0]}\n  replay it with explore({ ...options, schedule: '${init.schedule}' }, scenario)`,
      { cause: init.cause },
    );
    this.seed = init.seed;
    this.schedule = init.schedule;
  }
}

/**
 * Each freedom under its engine name: its letter in a schedule, its option in {@link Freedoms} (and
 * its count in the report), and its chance when the option is not given.
 */
const FREEDOMS = {
  duplicate: { letter: 'd', option: 'duplicate', chance: 0.1 },
  'lose-answer': { letter: 'l', option: 'loseAnswer', chance: 0.1 },
  reorder: { letter: 'o', option: 'reorder', chance: 0.1 },
  'skew-clock': { letter: 's', option: 'skewClock', chance: 0.1 },
  throttle: { letter: 't', option: 'throttle', chance: 0 },
  unavailable: { letter: 'u', option: 'unavailable', chance: 0 },
} as const satisfies Record<string, { letter: string; option: keyof Freedoms & keyof ExploreReport['used']; chance: number }>;
type Kind = keyof typeof FREEDOMS;
const KINDS = Object.keys(FREEDOMS) as Kind[];
const KIND_OF_LETTER = new Map<string, Kind>(KINDS.map((kind) => [FREEDOMS[kind].letter, kind]));
const POINT = new RegExp(`^([${KINDS.map((kind) => FREEDOMS[kind].letter).join('')}])(\\d+)$`);

/** A decision point where a freedom was used (numbered in the order the service meets them); `url`, for the story. */
interface Point {
  at: number;
  kind: Kind;
  url?: string;
}
type Schedule = readonly Point[];

/** The point as a schedule keeps it: `url` only when the decision was about a delivery. */
const pointAt = (at: number, kind: Kind, url: string | undefined): Point => (url === undefined ? { at, kind } : { at, kind, url });

/**
 * Runs `scenario` against a fresh test service once per schedule; resolves with a report when every
 * run passes, and rejects with an {@link ExploreError} naming the shortest failing schedule otherwise.
 *
 * @example
 * await explore({ createApp: (env) => createApp(env), runs: 200 }, async (service) => {
 *   await service.client.send(orderPlaced, { orderId: 'o-1' });
 *   await service.runUntilIdle();
 *   expect(await countOrders('o-1')).toBe(1);
 * });
 */
export async function explore(options: ExploreOptions, scenario: (service: TestService) => Promise<void>): Promise<ExploreReport> {
  if (options === null || typeof options !== 'object')
    throw new ValidationError('options', 'expected the test service options with runs?, seed?, freedoms?');
  if (typeof scenario !== 'function') throw new ValidationError('scenario', 'expected an async function (service) => { ... }');
  const { runs = 100, seed, schedule, freedoms = {}, maxShrinks = 50, ...serviceOptions } = options;
  checkCount('runs', runs);
  checkCount('maxShrinks', maxShrinks, 0);
  const chances = Object.fromEntries(
    KINDS.map((kind) => {
      const { option, chance: byDefault } = FREEDOMS[kind];
      return [kind, chance(`freedoms.${option}`, freedoms[option] ?? byDefault)];
    }),
  ) as Record<Kind, number>;
  const used = Object.fromEntries(KINDS.map((kind) => [FREEDOMS[kind].option, 0])) as ExploreReport['used'];
  const attempt = (decide: Decide) => runOnce(serviceOptions, scenario, decide);
  if (schedule !== undefined) {
    const fixed = parseSchedule(schedule);
    const outcome = await attempt(replaying(fixed));
    if (outcome.error !== undefined) throw new ExploreError({ seed: seed ?? 0, schedule, story: outcome.story, cause: outcome.error });
    return { runs: 1, firstSeed: seed ?? 0, used: count(fixed, used) };
  }
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new ValidationError('seed', `expected a whole number, got ${String(seed)}`);
  const firstSeed = seed ?? Math.floor(Math.random() * 2 ** 31);
  for (let run = 0; run < runs; run += 1) {
    const runSeed = firstSeed + run;
    const outcome = await attempt(drawing(runSeed, chances));
    count(outcome.schedule, used);
    if (outcome.error === undefined) continue;
    const shrunk = await shrink(outcome as Failed, attempt, maxShrinks);
    throw new ExploreError({ seed: runSeed, schedule: formatSchedule(shrunk.schedule), story: shrunk.story, cause: shrunk.error });
  }
  return { runs, firstSeed, used };
}

/** Decides at each decision point; remembers where a freedom was used. */
interface Decide {
  (kind: Kind, url?: string): boolean;
  readonly used: Schedule;
}

function drawing(seed: number, chances: Record<Kind, number>): Decide {
  // Mersenne Twister: its seeding mixes small seeds well (xoroshiro's first draw from seed 1, 2, 7... is about 1.0).
  const rng = mersenne(seed);
  const used: Point[] = [];
  let at = 0;
  return Object.assign(
    (kind: Kind, url?: string) => {
      at += 1;
      // Drawn at every point, used or not: the same seed makes the same draws in the same order.
      const yes = uniformFloat64(rng) < chances[kind];
      if (yes) used.push(pointAt(at, kind, url));
      return yes;
    },
    { used },
  );
}

function replaying(schedule: Schedule): Decide {
  const used: Point[] = [];
  let at = 0;
  return Object.assign(
    (kind: Kind, url?: string) => {
      at += 1;
      const yes = schedule.some((point) => point.at === at && point.kind === kind);
      if (yes) used.push(pointAt(at, kind, url));
      return yes;
    },
    { used },
  );
}

interface Outcome {
  schedule: Schedule;
  story: string;
  error?: unknown;
}
type Failed = Outcome & { error: unknown };

async function runOnce(options: TestServiceOptions, scenario: (service: TestService) => Promise<void>, decide: Decide): Promise<Outcome> {
  const service = await startTestService(options, {
    freedom: (kind, url) => decide(kind, url),
    reorder: (url) => decide('reorder', url),
    // Two decision points per sending call: throttled (429), else unavailable (503), else answered.
    throttleSend: () =>
      decide('throttle')
        ? { status: 429, retryAfterSeconds: 1 }
        : decide('unavailable')
          ? { status: 503, retryAfterSeconds: 1 }
          : undefined,
  });
  let error: unknown;
  try {
    await scenario(service);
  } catch (caught) {
    error = caught ?? new Error('the scenario threw undefined');
  } finally {
    await service.close();
  }
  const outcome: Outcome = { schedule: [...decide.used], story: tell(service.attempts(), decide.used) };
  if (error !== undefined) outcome.error = error;
  return outcome;
}

/** Drops one used freedom at a time while the run still fails: the shortest failing schedule found. */
async function shrink(failed: Failed, attempt: (decide: Decide) => Promise<Outcome>, maxShrinks: number): Promise<Failed> {
  let best = failed;
  let budget = maxShrinks;
  for (let index = 0; index < best.schedule.length && budget > 0; ) {
    budget -= 1;
    const smaller = best.schedule.filter((_, other) => other !== index);
    const outcome = await attempt(replaying(smaller));
    // Keep it only if it fails and used exactly the smaller schedule (removing one decision can move later ones).
    if (outcome.error !== undefined && formatSchedule(outcome.schedule) === formatSchedule(smaller)) best = outcome as Failed;
    else index += 1;
  }
  return best;
}

/** The schedule in words, from what was recorded: `order-placed delivered twice (attempts 1 and 2), answer to ... lost`. */
function tell(attempts: readonly Attempt[], schedule: Schedule): string {
  const parts: string[] = [];
  // By message: another message's attempt may be recorded between the two copies of a duplicate.
  const byMessage = new Map<string, Attempt[]>();
  for (const attempt of attempts) byMessage.set(attempt.messageId, [...(byMessage.get(attempt.messageId) ?? []), attempt]);
  const told: Array<{ first: Attempt; text: string }> = [];
  for (const own of byMessage.values()) {
    own.forEach((attempt, index) => {
      const name = nameOf(attempt.url);
      const previous = own[index - 1];
      const pairedBefore = previous?.fault === 'duplicate' && previous.retried === attempt.retried && attempt.fault === 'duplicate';
      if (attempt.fault === 'duplicate' && !pairedBefore && own[index + 1]?.fault === 'duplicate') {
        told.push({ first: attempt, text: `${name} delivered twice (attempts ${index + 1} and ${index + 2})` });
      } else if (attempt.fault === 'loseAnswer') {
        told.push({ first: attempt, text: `answer to ${name} attempt ${index + 1} lost after the handler ran` });
      }
    });
  }
  // In the order they happened.
  told.sort((a, b) => attempts.indexOf(a.first) - attempts.indexOf(b.first));
  parts.push(...told.map((entry) => entry.text));
  for (const point of schedule) {
    if (point.kind === 'reorder') parts.push(`${nameOf(point.url!)} delivered after the messages in flight with it`);
    if (point.kind === 'skew-clock') parts.push(`${nameOf(point.url!)} signed by a clock 3 s ahead`);
  }
  const throttles = schedule.filter((point) => point.kind === 'throttle').length;
  if (throttles > 0) parts.push(`${throttles} sending call(s) answered 429`);
  const unavailable = schedule.filter((point) => point.kind === 'unavailable').length;
  if (unavailable > 0) parts.push(`${unavailable} sending call(s) answered 503`);
  return parts.length > 0 ? parts.join(', ') : 'no freedom used';
}

function nameOf(url: string): string {
  const segments = new URL(url).pathname.split('/').filter(Boolean);
  return segments.at(-1) ?? url;
}

function formatSchedule(schedule: Schedule): string {
  return schedule.map((point) => `${FREEDOMS[point.kind].letter}${point.at}`).join(' ');
}

function parseSchedule(text: string): Schedule {
  if (typeof text !== 'string') throw new ValidationError('schedule', 'expected a schedule as a failure names it, e.g. "d2 l5"');
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => {
      const match = POINT.exec(token);
      if (!match)
        throw new ValidationError(
          'schedule',
          `expected points like "d2" (duplicate), "l5" (lost answer), "o4" (reordered), "s6" (skewed clock), "t1" (throttled), "u3" (unavailable), got ${JSON.stringify(token)}`,
        );
      return { kind: KIND_OF_LETTER.get(match[1]!)!, at: Number(match[2]) };
    });
}

function count(schedule: Schedule, used: ExploreReport['used']): ExploreReport['used'] {
  for (const point of schedule) used[FREEDOMS[point.kind].option] += 1;
  return used;
}

function checkCount(name: string, value: number, min = 1): void {
  if (!Number.isSafeInteger(value) || value < min)
    throw new ValidationError(name, `expected a whole number >= ${min}, got ${String(value)}`);
}

function chance(name: string, value: number): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1))
    throw new ValidationError(name, `expected a probability from 0 to 1, got ${String(value)}`);
  return value;
}
