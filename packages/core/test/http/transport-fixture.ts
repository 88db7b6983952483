import { createRequester } from '../../src/http';
import type { Requester, RequesterOptions } from '../../src/http';
import type { StubServer } from '../support/stub-server';

/** A sleep that never waits and remembers what it was asked for, so backoff is asserted, not endured. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

/** A bearer transport aimed at the stub, with a fixed jitter and a recording sleep. */
export function transportFor(stub: StubServer, overrides: Partial<RequesterOptions> = {}): { transport: Requester; delays: number[] } {
  const { sleep, delays } = recordingSleep();
  const transport = createRequester({
    baseUrl: stub.url,
    auth: { kind: 'bearer', token: 'test-token' },
    sleep,
    random: () => 0.5,
    ...overrides,
  });
  return { transport, delays };
}

/** The rejection of a promise, failing the test when it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
