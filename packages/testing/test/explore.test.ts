import { createReceiver, defineDestination, ValidationError } from '@mailroom/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ExploreError, explore, type TestService } from '../src';

// An order handler whose side effect (charging) must happen once per order, explored under the
// service's freedoms: duplicates and answers lost after the handler ran.

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });

function shop(withStore: boolean) {
  const charges: string[] = [];
  const createApp = (env: Readonly<Record<string, string>>) => {
    const receiver = createReceiver({ env, onError: () => {}, ...(withStore ? { idempotency: { store: createMemoryStore() } } : {}) });
    return { fetch: receiver.destination(orderPlaced, (message) => void charges.push(message.body.orderId)).fetch };
  };
  /** Two orders sent one after the other, run to the end; `charges` holds what the handler saw, in order. */
  const sendTwo = async (service: TestService) => {
    charges.length = 0;
    await service.client.send(orderPlaced, { orderId: 'o-1' });
    await service.client.send(orderPlaced, { orderId: 'o-2' });
    await service.runUntilIdle();
  };
  const scenario = async (service: TestService) => {
    await sendTwo(service);
    expect(charges.filter((id) => id === 'o-1')).toHaveLength(1);
    expect(charges.filter((id) => id === 'o-2')).toHaveLength(1);
  };
  return { createApp, charges, sendTwo, scenario };
}

describe('explore', () => {
  it('an idempotent handler passes 200 schedules, which did use the freedoms', async () => {
    const { createApp, scenario } = shop(true);
    const report = await explore({ createApp, runs: 200, seed: 1 }, scenario);
    expect(report.runs).toBe(200);
    expect(report.used.duplicate).toBeGreaterThan(20);
    expect(report.used.loseAnswer).toBeGreaterThan(20);
    expect(report.used.reorder).toBeGreaterThan(20);
    expect(report.used.skewClock).toBeGreaterThan(20);
  });

  it('the same handler without its store fails, naming the seed, the shortest schedule in words, and how to replay it', async () => {
    const { createApp, scenario } = shop(false);
    const error = await explore({ createApp, runs: 200, seed: 1 }, scenario).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExploreError);
    const failure = error as ExploreError;
    // Shrunk to one decision: a single duplicate or a single lost answer is enough to charge twice.
    expect(failure.schedule).toMatch(/^[dl]\d+$/);
    expect(failure.message).toMatch(
      /^seed \d+: (order-placed delivered twice \(attempts 1 and 2\)|answer to order-placed attempt 1 lost after the handler ran)\n/,
    );
    expect(failure.message).toContain(`explore({ ...options, schedule: '${failure.schedule}' }, scenario)`);
    // The named schedule replays exactly: the same failure, every time.
    for (let again = 0; again < 2; again += 1) {
      const replayed = await explore({ createApp, schedule: failure.schedule }, scenario).catch((caught: unknown) => caught);
      expect((replayed as ExploreError).message.split('\n')[0]).toBe(
        `seed 0: ${failure.message.split('\n')[0]!.replace(/^seed \d+: /, '')}`,
      );
    }
    // And with no freedom used, the same scenario passes.
    await expect(explore({ createApp, schedule: '' }, scenario)).resolves.toMatchObject({ runs: 1 });
  });

  it('throttles sending calls only when asked, and the same seed draws the same schedules', async () => {
    const { createApp } = shop(true);
    const sends = async (service: TestService) => {
      await service.client.send(orderPlaced, { orderId: 'o-1' }, { deduplicationId: 'o-1' });
      await service.runUntilIdle();
    };
    const once = await explore({ createApp, runs: 20, seed: 7, freedoms: { throttle: 0.25, duplicate: 0, loseAnswer: 0 } }, sends);
    const twice = await explore({ createApp, runs: 20, seed: 7, freedoms: { throttle: 0.25, duplicate: 0, loseAnswer: 0 } }, sends);
    expect(once.used.throttle).toBeGreaterThan(0);
    expect(twice.used).toEqual(once.used);
    const never = await explore({ createApp, runs: 5, seed: 7 }, sends);
    expect(never.used.throttle).toBe(0);
  });

  it('answers sending calls 503 only when asked, names them in the story, and a sender that retries still sends once', async () => {
    const { createApp } = shop(true);
    const sent: string[] = [];
    const sends = async (service: TestService) => {
      const { messageId } = await service.client.send(orderPlaced, { orderId: 'o-1' }, { deduplicationId: 'o-1' });
      sent.push(messageId);
      await service.runUntilIdle();
      expect(service.deliveries()).toHaveLength(1);
    };
    const report = await explore({ createApp, runs: 20, seed: 3, freedoms: { unavailable: 0.25, duplicate: 0, loseAnswer: 0 } }, sends);
    expect(report.used.unavailable).toBeGreaterThan(0);
    expect(report.used.throttle).toBe(0);
    expect(sent).toHaveLength(20);
    // Without a deduplication id a send is not safe to repeat, so the client does not retry it: the
    // 503 reaches the scenario, and the failure names it.
    const givingUp = async (service: TestService) => {
      await service.client.send(orderPlaced, { orderId: 'o-1' });
    };
    const error = await explore(
      { createApp, runs: 20, seed: 3, freedoms: { unavailable: 0.5, duplicate: 0, loseAnswer: 0 } },
      givingUp,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExploreError);
    expect((error as ExploreError).schedule).toMatch(/^u\d+$/);
    expect((error as ExploreError).message).toMatch(/^seed \d+: 1 sending call\(s\) answered 503\n/);
  });

  it('delivers messages in flight together in another order now and then, and names the one held back', async () => {
    const { createApp, charges: arrived, sendTwo } = shop(false);
    const options = { createApp, runs: 100, seed: 5, freedoms: { duplicate: 0, loseAnswer: 0, skewClock: 0 } };
    // A handler that counts on the sending order fails, shrunk to the one reordering that breaks it.
    const inOrder = async (service: TestService) => {
      await sendTwo(service);
      expect(arrived).toEqual(['o-1', 'o-2']);
    };
    const error = await explore(options, inOrder).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExploreError);
    expect((error as ExploreError).schedule).toMatch(/^o\d+$/);
    expect((error as ExploreError).message).toMatch(/^seed \d+: order-placed delivered after the messages in flight with it\n/);
    // One that does not passes the same schedules, which did reorder.
    const anyOrder = async (service: TestService) => {
      await sendTwo(service);
      expect([...arrived].sort()).toEqual(['o-1', 'o-2']);
    };
    expect((await explore(options, anyOrder)).used.reorder).toBeGreaterThan(5);
  });

  it('signs now and then by a clock 3 s ahead: a receiver with the default tolerance accepts it, one with none does not', async () => {
    const app = (clockToleranceSeconds?: number) => (env: Readonly<Record<string, string>>) => {
      const receiver = createReceiver({
        env,
        onError: () => {},
        ...(clockToleranceSeconds === undefined ? {} : { clockToleranceSeconds }),
      });
      return { fetch: receiver.destination(orderPlaced, () => {}).fetch };
    };
    const acceptedAtOnce = async (service: TestService) => {
      await service.client.send(orderPlaced, { orderId: 'o-1' });
      await service.runUntilIdle();
      expect(service.attempts().map((attempt) => attempt.status)).toEqual([200]);
    };
    const options = { runs: 40, seed: 11, freedoms: { duplicate: 0, loseAnswer: 0, reorder: 0, skewClock: 0.5 } };
    expect((await explore({ ...options, createApp: app() }, acceptedAtOnce)).used.skewClock).toBeGreaterThan(5);
    const error = await explore({ ...options, createApp: app(0) }, acceptedAtOnce).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExploreError);
    expect((error as ExploreError).schedule).toMatch(/^s\d+$/);
    expect((error as ExploreError).message).toMatch(/^seed \d+: order-placed signed by a clock 3 s ahead\n/);
  });

  it('refuses options it cannot use', async () => {
    const { createApp, scenario } = shop(true);
    await expect(explore({ createApp, runs: 0 }, scenario)).rejects.toThrow(ValidationError);
    await expect(explore({ createApp, freedoms: { duplicate: 2 } }, scenario)).rejects.toThrow(/probability/);
    await expect(explore({ createApp, schedule: 'x9' }, scenario)).rejects.toThrow(/"d2"/);
    await expect(explore({ createApp }, undefined as never)).rejects.toThrow(/scenario/);
  });
});
