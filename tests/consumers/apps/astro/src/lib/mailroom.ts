import { createMessagingClient, createReceiver } from '@mailroom/core';
import { MAILROOM_CURRENT_SIGNING_KEY, MAILROOM_NEXT_SIGNING_KEY } from 'astro:env/server';

export const receiver = createReceiver({ currentSigningKey: MAILROOM_CURRENT_SIGNING_KEY, nextSigningKey: MAILROOM_NEXT_SIGNING_KEY });
export const client = createMessagingClient();
/** What the destination received, for the test to read at /api/events. */
export const received: unknown[] = [];
