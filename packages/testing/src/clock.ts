import { ConfigError, MailroomError, ValidationError } from '@mailroom/core';
import type { TimerClock } from '@mailroom/dev-server/internal-embedded';

// The test's clock. Virtual by default: the service's time stands still until the test advances it,
// and then everything that falls due runs in time order, each instant to completion before the next
// (attempts, the app's handlers, the requests they make), so a run is the same every time.

/** A clock the service's timers run on, with its one alarm (the service keeps the earliest time there). */
export interface TestClock extends TimerClock {
  readonly virtual: boolean;
  /** The alarm's time, or `undefined` when nothing is armed. */
  alarmAt(): number | undefined;
  /** Moves the time to `at` (never back) and rings the alarm if it is due. */
  moveTo(at: number): void;
}

export function virtualClock(start: number): TestClock {
  let time = start;
  let alarm: { at: number; ring: () => void } | undefined;
  return {
    virtual: true,
    now: () => time,
    setAlarm(at, ring) {
      alarm = { at, ring };
    },
    clearAlarm() {
      alarm = undefined;
    },
    alarmAt: () => alarm?.at,
    moveTo(at) {
      time = Math.max(time, at);
      if (alarm && alarm.at <= time) {
        const { ring } = alarm;
        alarm = undefined;
        ring();
      }
    },
  };
}

/** Real time: Node's timers on `Date.now`, never holding the process open. */
export function realClock(): TestClock {
  let alarm: NodeJS.Timeout | undefined;
  let at: number | undefined;
  const clearAlarm = (): void => {
    if (alarm) clearTimeout(alarm);
    alarm = undefined;
    at = undefined;
  };
  return {
    virtual: false,
    now: Date.now,
    setAlarm(time, ring) {
      clearAlarm();
      at = time;
      // Node cannot wait longer than about 24.8 days at once; the timers re-arm when woken early.
      alarm = setTimeout(
        () => {
          at = undefined;
          ring();
        },
        Math.min(Math.max(0, time - Date.now()), 2_147_483_647),
      );
      alarm.unref();
    },
    clearAlarm,
    alarmAt: () => at,
    moveTo() {
      throw new ConfigError(
        'clock',
        undefined,
        'advance() and runUntilIdle() move a virtual clock: create the service without clock: "real" to use them',
      );
    },
  };
}

/** What a clock driver waits on: whether everything due now has run, and how to name what has not. */
export interface Quiescence {
  settled(): boolean;
  /** What is still running, for the error when it never settles. */
  describeBusy(): string;
}

/**
 * Waits until nothing runs at the current instant: an attempt still running may be waiting on the
 * app's own I/O, so this turns the event loop rather than only draining microtasks. Gives up after
 * `timeoutMs` of real time with what was still running.
 */
async function settle(quiet: Quiescence, timeoutMs: number): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  // Twice in a row: a turn can end just before a due batch schedules its next step.
  let quietTurns = 0;
  while (quietTurns < 2) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (quiet.settled()) quietTurns++;
    else quietTurns = 0;
    if (quietTurns === 0 && Date.now() > giveUpAt) {
      throw new MailroomError(
        'TEST_SERVICE_BUSY',
        `the test service waited ${timeoutMs} ms of real time for ${quiet.describeBusy()}; a handler that never answers holds the virtual clock. Answer every delivery, or raise settleTimeoutMs`,
      );
    }
  }
}

/** Moves a clock the way a test asks, each instant run to completion before the next. */
export interface ClockDriver {
  /** Waits until everything due at the current instant has run. */
  settle(): Promise<void>;
  /** Runs everything due within `ms`, in time order, then stops at exactly `ms` later. */
  advance(ms: number): Promise<void>;
  /** Runs until nothing is due; throws after `maxSteps` instants. */
  runUntilIdle(maxSteps: number): Promise<void>;
}

export function createClockDriver(clock: TestClock, quiet: Quiescence, settleTimeoutMs: number): ClockDriver {
  const wait = () => settle(quiet, settleTimeoutMs);
  return {
    settle: wait,
    async advance(ms) {
      const target = clock.now() + ms;
      await wait();
      for (let at = clock.alarmAt(); at !== undefined && at <= target; at = clock.alarmAt()) {
        clock.moveTo(at);
        await wait();
      }
      clock.moveTo(target);
      await wait();
    },
    async runUntilIdle(maxSteps) {
      if (!Number.isSafeInteger(maxSteps) || maxSteps < 1)
        throw new ValidationError('maxSteps', `expected a whole number >= 1, got ${maxSteps}`);
      if (!clock.virtual) clock.moveTo(0);
      await wait();
      for (let steps = 0; ; steps++) {
        const at = clock.alarmAt();
        if (at === undefined) return;
        if (steps >= maxSteps) {
          throw new MailroomError(
            'TEST_SERVICE_NEVER_IDLE',
            `runUntilIdle() ran ${maxSteps} instants and something is still due (at ${new Date(at).toISOString()}): a schedule fires forever, or a message keeps being retried. Use advance(duration) with schedules, or raise maxSteps`,
          );
        }
        clock.moveTo(at);
        await wait();
      }
    },
  };
}
