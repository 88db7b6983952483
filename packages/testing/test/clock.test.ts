import { MailroomError, ValidationError } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { createClockDriver, realClock, virtualClock } from '../src/clock';

// The clock driver apart from any service: a virtual clock with one alarm, and a stand-in for "is
// anything still running" that the test controls.

const idle = { settled: () => true, describeBusy: () => 'nothing' };
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('advance', () => {
  it('rings each alarm at its own time, in order, and stops at exactly the target', async () => {
    const clock = virtualClock(1_000);
    const rang: number[] = [];
    const arm = (at: number) =>
      clock.setAlarm(at, () => {
        rang.push(clock.now());
        // Each ring arms the next, as the service's timers do.
        if (at < 1_030) arm(at + 10);
      });
    arm(1_010);
    await createClockDriver(clock, idle, 1_000).advance(25);
    expect(rang).toEqual([1_010, 1_020]);
    expect(clock.now()).toBe(1_025);
    expect(clock.alarmAt()).toBe(1_030);
  });

  it('waits for two quiet turns in a row: work that starts a turn after the first quiet one is still waited for', async () => {
    const clock = virtualClock(0);
    let busy = false;
    let done = false;
    // The alarm's work begins three turns later (a due batch that schedules its next step), then takes two more.
    clock.setAlarm(10, () =>
      setImmediate(() =>
        setImmediate(() =>
          setImmediate(() => {
            busy = true;
            void turn()
              .then(turn)
              .then(() => {
                busy = false;
                done = true;
              });
          }),
        ),
      ),
    );
    await createClockDriver(clock, { settled: () => !busy, describeBusy: () => 'busy' }, 1_000).advance(10);
    expect(done).toBe(true);
  });

  it('gives up after settleTimeoutMs of real time, naming what was still running', async () => {
    const clock = virtualClock(0);
    const driver = createClockDriver(clock, { settled: () => false, describeBusy: () => '1 delivery(ies) the app has not answered' }, 30);
    const error = await driver.advance(1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MailroomError);
    expect((error as Error).message).toMatch(/waited 30 ms of real time for 1 delivery\(ies\) the app has not answered/);
  });
});

describe('runUntilIdle', () => {
  it('runs until no alarm is armed, and stops a clock that never idles after maxSteps', async () => {
    const clock = virtualClock(0);
    let rings = 0;
    const forever = (): void =>
      clock.setAlarm(clock.now() + 60_000, () => {
        rings++;
        forever();
      });
    forever();
    const driver = createClockDriver(clock, idle, 1_000);
    await expect(driver.runUntilIdle(5)).rejects.toThrow(/ran 5 instants and something is still due/);
    expect(rings).toBe(5);
    await expect(driver.runUntilIdle(0)).rejects.toThrow(ValidationError);
    clock.clearAlarm();
    await driver.runUntilIdle(5);
  });
});

describe('the real clock', () => {
  it('refuses to be moved: advance() needs the virtual one', async () => {
    const driver = createClockDriver(realClock(), idle, 1_000);
    await expect(driver.advance(1)).rejects.toThrow(/virtual clock/);
  });
});
