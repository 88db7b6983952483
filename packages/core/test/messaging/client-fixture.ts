import { createMessagingClient, type MessagingClientOptions } from '../../src';
import { startStubServer, type StubServer } from '../support/stub-server';

/** A messaging client aimed at a fresh stub, never sleeping for backoff, reading no real environment. */
export async function messagingFixture(options: MessagingClientOptions = {}) {
  const stub = await startStubServer();
  const delays: number[] = [];
  const client = createMessagingClient({
    baseUrl: stub.url,
    token: 'test-token',
    env: {},
    sleep: async (ms) => void delays.push(ms),
    random: () => 0.5,
    ...options,
  });
  return { stub, client, delays };
}

export type { StubServer };
