import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTimers, nodeClock } from '../src/engine/timers';

const START = 1_800_000_000_000;

describe('the engine timers', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires everything already due in one batch, in the order it was armed, after the current task', () => {
    const timers = createTimers(nodeClock(Date.now), () => {});
    const fired: string[] = [];
    for (const key of ['c', 'a', 'b']) timers.at(key, START - 5, () => fired.push(key));
    expect(fired).toEqual([]);
    vi.runOnlyPendingTimers();
    expect(fired).toEqual(['c', 'a', 'b']);
  });

  it('fires a later time at that time, and lets a key be re-armed or cancelled', () => {
    const timers = createTimers(nodeClock(Date.now), () => {});
    const fired: string[] = [];
    timers.at('later', START + 1000, () => fired.push('later'));
    timers.at('moved', START, () => fired.push('moved-early'));
    timers.at('moved', START + 500, () => fired.push('moved'));
    timers.at('cancelled', START, () => fired.push('cancelled'));
    timers.cancel('cancelled');
    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['moved']);
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(['moved', 'later']);
  });

  it('fires what a firing timer arms for now in the same batch, and nothing after clear', () => {
    const timers = createTimers(nodeClock(Date.now), () => {});
    const fired: string[] = [];
    timers.at('first', START, () => {
      fired.push('first');
      timers.at('second', START, () => fired.push('second'));
    });
    vi.runOnlyPendingTimers();
    expect(fired).toEqual(['first', 'second']);
    timers.at('never', START, () => fired.push('never'));
    timers.at('never-later', START + 10, () => fired.push('never-later'));
    timers.clear();
    vi.runAllTimers();
    expect(fired).toEqual(['first', 'second']);
  });

  it("never fires before its time by the clock it was given, even when Node's timer clock runs ahead of it", () => {
    let lag = 0;
    const timers = createTimers(
      nodeClock(() => Date.now() - lag),
      () => {},
    );
    const fired: number[] = [];
    timers.at('x', START + 100, () => fired.push(Date.now() - lag));
    lag = 1;
    vi.advanceTimersByTime(100);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([START + 100]);
  });

  it('fires many timers in time order (equal times in arming order) through one Node timer, skipping cancelled ones', () => {
    const timers = createTimers(nodeClock(Date.now), () => {});
    const fired: string[] = [];
    // A seeded shuffle of 500 times, 5 keys per time, a third of them cancelled or moved.
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const expected: Array<[number, number, string]> = [];
    let order = 0;
    for (let index = 0; index < 2500; index++) {
      const key = `k${index}`;
      const at = START + 1 + Math.floor(random() * 500);
      timers.at(key, at, () => fired.push(key));
      const roll = random();
      if (roll < 0.15) timers.cancel(key);
      else if (roll < 0.3) {
        const moved = START + 1 + Math.floor(random() * 500);
        timers.at(key, moved, () => fired.push(key));
        expected.push([moved, order++, key]);
      } else expected.push([at, order++, key]);
    }
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(250);
    const byTime = expected.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(fired).toEqual(byTime.filter(([at]) => at <= START + 250).map(([, , key]) => key));
    vi.advanceTimersByTime(250);
    expect(fired).toEqual(byTime.map(([, , key]) => key));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("re-arms for an earlier timer armed after a later one, and arms beyond Node's 24.8-day limit", () => {
    const timers = createTimers(nodeClock(Date.now), () => {});
    const fired: string[] = [];
    const year = 365 * 24 * 3600 * 1000;
    timers.at('year', START + year, () => fired.push('year'));
    timers.at('soon', START + 10, () => fired.push('soon'));
    vi.advanceTimersByTime(10);
    expect(fired).toEqual(['soon']);
    vi.advanceTimersByTime(year - 11);
    expect(fired).toEqual(['soon']);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['soon', 'year']);
  });

  it('fires message due times in time order (ties in arming order), those due now in one batch, and nothing after clear', () => {
    const fired: string[] = [];
    const timers = createTimers(nodeClock(Date.now), (id) => fired.push(id));
    let seed = 11;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const armed: Array<[number, number, string]> = [];
    // More than the heap's first allocation, so it grows.
    for (let index = 0; index < 3000; index++) {
      const at = START + 1 + Math.floor(random() * 300);
      timers.due(`m${index}`, at);
      armed.push([at, index, `m${index}`]);
    }
    timers.due('now-1', START);
    timers.due('now-2', START - 10);
    timers.at('keyed', START + 150, () => fired.push('keyed'));
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(0);
    expect(fired).toEqual(['now-1', 'now-2']);
    vi.advanceTimersByTime(300);
    const byTime = armed.sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, , id]) => id);
    expect(fired.filter((id) => id.startsWith('m'))).toEqual(byTime);
    // A keyed timer fires after every message due by its time, and before the later ones.
    const keyedAt = fired.indexOf('keyed');
    const dueBy = armed.filter(([at]) => at <= START + 150).length;
    expect(keyedAt).toBe(2 + dueBy);
    timers.due('late', START + 1000);
    timers.clear();
    vi.runAllTimers();
    expect(fired).not.toContain('late');
  });
});
