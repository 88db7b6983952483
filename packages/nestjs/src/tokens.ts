// Injection tokens are strings, not symbols: a string survives two copies of this package in one
// app (an ESM and a CJS build, or two versions), where two `Symbol()`s would never match.

/**
 * Injection token of the `MessagingClient` (`@mailroom/core`).
 *
 * @example
 * constructor(@Inject(MAILROOM_MESSAGING_CLIENT) private readonly mailroom: MessagingClient) {}
 */
export const MAILROOM_MESSAGING_CLIENT = 'MAILROOM_MESSAGING_CLIENT';

/**
 * Injection token of the `ManagementClient` (`@mailroom/core`).
 *
 * @example
 * constructor(@Inject(MAILROOM_MANAGEMENT_CLIENT) private readonly management: ManagementClient) {}
 */
export const MAILROOM_MANAGEMENT_CLIENT = 'MAILROOM_MANAGEMENT_CLIENT';

/**
 * Injection token of the core `Receiver` every guard and filter of the module verifies with.
 *
 * @example
 * constructor(@Inject(MAILROOM_RECEIVER) private readonly receiver: Receiver) {}
 */
export const MAILROOM_RECEIVER = 'MAILROOM_RECEIVER';
