import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTimers } from '../src/engine/timers';

const START = 1_800_000_000_000;

describe('the engine timers', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires everything already due in one batch, in the order it was armed, after the current task', () => {
    const timers = createTimers(Date.now);
    const fired: string[] = [];
    for (const key of ['c', 'a', 'b']) timers.at(key, START - 5, () => fired.push(key));
    expect(fired).toEqual([]);
    vi.runOnlyPendingTimers();
    expect(fired).toEqual(['c', 'a', 'b']);
  });

  it('fires a later time at that time, and lets a key be re-armed or cancelled', () => {
    const timers = createTimers(Date.now);
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
    const timers = createTimers(Date.now);
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
    const timers = createTimers(() => Date.now() - lag);
    const fired: number[] = [];
    timers.at('x', START + 100, () => fired.push(Date.now() - lag));
    lag = 1;
    vi.advanceTimersByTime(100);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([START + 100]);
  });
});
