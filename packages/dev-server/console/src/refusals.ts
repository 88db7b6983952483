import { SIGNATURE_REFUSED_HEADER } from '@mailroom/core/internal-protocol';
import type { ConsoleSettings } from './api';

// Why the app refused a delivery, in words: a Mailroom receiver's 401 names the check that failed
// (outside production), and the dev server knows its own settings, so a mismatch between the two
// (prefix, issuer, keys) is named as such, with the setting to change.

/** The settings of this server a refusal is explained against. */
export type Signing = Pick<ConsoleSettings, 'headerPrefix' | 'issuer'>;

/** What went wrong and what to do, or `undefined` for an answer that is not a refused signature. */
export interface Refusal {
  what: string;
  fix: string;
}

/** Explains a 401 by the reason the receiver gave in its answer's headers. */
export function explainRefusal(
  response: { status: number; headers: Record<string, string[]> },
  url: string,
  settings: Signing,
): Refusal | undefined {
  if (response.status !== 401) return undefined;
  const wanted = SIGNATURE_REFUSED_HEADER.toLowerCase();
  const reason = Object.entries(response.headers).find(([name]) => name.toLowerCase() === wanted)?.[1]?.[0];
  const keys = 'MAILROOM_CURRENT_SIGNING_KEY and MAILROOM_NEXT_SIGNING_KEY';
  switch (reason) {
    case undefined:
      return {
        what: 'The app refused the delivery (401) without saying which check failed.',
        fix: 'A Mailroom receiver names it when the app runs with NODE_ENV=development (or in dev mode); its onError has it too.',
      };
    case 'missing':
      return {
        what: `The app found no ${settings.headerPrefix}-Signature header: its header prefix is not "${settings.headerPrefix}", this server's.`,
        fix: `Set MAILROOM_HEADER_PREFIX=${settings.headerPrefix} for the app (or start mailroom dev with the app's --header-prefix).`,
      };
    case 'issuer':
      return {
        what: `The app expects another issuer than "${settings.issuer}", the one this server signs with.`,
        fix: `Set MAILROOM_ISSUER=${settings.issuer} for the app (or start mailroom dev with the app's --issuer).`,
      };
    case 'bad-signature':
    case 'no-key':
      return {
        what: "The app verifies with other signing keys than this server's (keys from another server, or from before a rotation).",
        fix: `Set ${keys} to the keys mailroom dev prints now (Settings shows them too).`,
      };
    case 'subject':
      return {
        what: `The token was signed for ${url}, and the app checked it against another URL.`,
        fix: 'Behind a proxy or a rewrite, give the receiver its public URL (publicUrl / MAILROOM_PUBLIC_URL), or send to the URL the app is reached at.',
      };
    case 'body-hash':
      return {
        what: 'The body the app verified is not the body that was sent.',
        fix: 'Something read or changed the body before the receiver (a JSON body parser): give the receiver the raw body.',
      };
    case 'expired':
    case 'not-yet-valid':
      return {
        what: `The token was ${reason === 'expired' ? 'already expired' : 'not valid yet'} on the app's clock.`,
        fix: "The app's clock and this server's differ, or a skew-clock fault is on (see Faults).",
      };
    default:
      return {
        what: `The app refused the signature token (${reason}).`,
        fix: 'The token is not what this receiver reads: check that the app and mailroom dev use the same Mailroom version.',
      };
  }
}
