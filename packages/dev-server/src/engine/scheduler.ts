import { parseCron } from '@mailroom/core/internal-protocol';
import { Cron } from 'croner';
import type { EventBus } from '../events';
import type { Store } from '../state/store';
import type { ScheduleRecord } from '../state/records';
import type { Engine } from './create-engine';
import type { EngineConfig } from '../settings';

/** Fires schedules on their cron, each firing handed to `fire` with the time it is for. */
export interface Scheduler {
  /** Arms every active schedule of the store (on start, and so after a restart). */
  start(): void;
  /** (Re)arms one schedule after it was created, replaced or resumed; disarms it when paused. */
  arm(schedule: ScheduleRecord): void;
  disarm(scheduleId: string): void;
  /** The service-clock time of the schedule's next firing, for the listing. */
  nextFiring(schedule: ScheduleRecord): number | undefined;
}

export interface SchedulerOptions {
  store: Store;
  engine: Engine;
  config: EngineConfig;
  events: EventBus;
  /** Accepts one firing's messages; its failure is reported, and the schedule keeps its cron. */
  fire(schedule: ScheduleRecord, time: number): Promise<void>;
}

/**
 * Cron patterns run on a clock the time scale speeds up like every other wait: with `timeScale:
 * 0.001` a schedule firing every minute fires every 60 real milliseconds. Every time this module
 * hands out (the next firing, the firing time, `lastScheduleTime`) is on the one clock the rest of
 * the server shows, the real one: the moment the firing really happens, so a schedule's "next
 * firing" and its message's log agree. (A scale of 0, "no waiting", would fire without end, so
 * schedules keep real time then.) Firings missed while the server was down are not made up, as a
 * restarted service would not either.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, engine, config } = options;
  const scale = config.timeScale > 0 ? config.timeScale : 1;
  const startReal = config.now();
  // The sped-up clock cron patterns are matched on, and the way back to real time.
  const cronTimeAt = (realTime: number): number => startReal + (realTime - startReal) / scale;
  const realAt = (cronTime: number): number => startReal + (cronTime - startReal) * scale;
  const crons = new Map<string, { cron: string; instance: Cron }>();

  const cronOf = (schedule: ScheduleRecord): Cron => {
    const known = crons.get(schedule.scheduleId);
    if (known && known.cron === schedule.cron) return known.instance;
    const parsed = parseCron(schedule.cron);
    const instance = new Cron(parsed.fields, { timezone: parsed.timezone, paused: true });
    crons.set(schedule.scheduleId, { cron: schedule.cron, instance });
    return instance;
  };

  /** The real time of a schedule's next firing. */
  const nextFiring = (schedule: ScheduleRecord): number | undefined => {
    const after = cronTimeAt(Math.max(config.now(), schedule.lastScheduleTime ?? 0));
    const next = cronOf(schedule).nextRun(new Date(after))?.getTime();
    // Whole milliseconds, as every other time the server shows; rounded up, never before the cron time.
    return next === undefined ? undefined : Math.ceil(realAt(next));
  };

  const key = (scheduleId: string): string => `schedule:${scheduleId}`;

  const arm = (schedule: ScheduleRecord): void => {
    if (schedule.paused) return disarm(schedule.scheduleId);
    const time = nextFiring(schedule);
    if (time === undefined) return disarm(schedule.scheduleId);
    engine.timer(key(schedule.scheduleId), time, () => {
      // Timers are keyed by schedule: a replacement re-armed this one; a deletion or pause cancelled it.
      const live = store.state.schedules.get(schedule.scheduleId);
      if (!live || live.paused) return;
      options
        .fire(live, time)
        .catch((error: unknown) => {
          options.events.emit({
            type: 'error',
            message: `schedule ${live.scheduleId} could not fire: ${error instanceof Error ? error.message : String(error)}`,
          });
        })
        .finally(() => {
          const after = store.state.schedules.get(live.scheduleId);
          if (after && !after.paused) arm({ ...after, lastScheduleTime: Math.max(after.lastScheduleTime ?? 0, time) });
        });
    });
  };

  const disarm = (scheduleId: string): void => {
    engine.cancelTimer(key(scheduleId));
    crons.delete(scheduleId);
  };

  return {
    start() {
      for (const schedule of store.state.schedules.values()) arm(schedule);
    },
    arm,
    disarm,
    nextFiring: (schedule) => (schedule.paused ? undefined : nextFiring(schedule)),
  };
}
