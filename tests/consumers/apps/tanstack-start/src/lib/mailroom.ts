import { createMessagingClient, createReceiver } from '@mailroom/core';

export const receiver = createReceiver(); // keys from MAILROOM_CURRENT_SIGNING_KEY / MAILROOM_NEXT_SIGNING_KEY
export const client = createMessagingClient();
/** What the destination received, for the test to read at /api/events. */
export const received: unknown[] = [];
