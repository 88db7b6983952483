import { createMailroom } from '@mailroom/next';

// Keys from MAILROOM_CURRENT_SIGNING_KEY / MAILROOM_NEXT_SIGNING_KEY; without them every delivery
// is answered 500 with a message saying so (fail closed), never accepted unverified.
export const mailroom = createMailroom();
