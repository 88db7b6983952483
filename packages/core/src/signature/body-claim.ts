import { constantTimeEqual } from './constant-time-equal';
import { fail, type Failure } from './failure';

const UNPADDED_LENGTH = 43; // base64url of a 32-byte SHA-256 digest
const EQUALS = 61;

/**
 * Does the `body` claim name this digest? `expected` is the canonical unpadded base64url of the
 * SHA-256 of the received body. Both spellings of the claim are accepted: unpadded (43 characters,
 * RFC 7515, what `sign` writes) and padded with its single `=` (44 characters). Any other spelling,
 * including a non-canonical one, cannot equal the canonical string and so does not match.
 */
export function bodyClaimMatches(claim: string, expected: string): boolean {
  const unpadded =
    claim.length === UNPADDED_LENGTH + 1 && claim.charCodeAt(UNPADDED_LENGTH) === EQUALS ? claim.slice(0, UNPADDED_LENGTH) : claim;
  return constantTimeEqual(unpadded, expected);
}

export const BODY_MISMATCH: Failure = fail(
  'body-hash',
  'the "body" claim does not match SHA-256 of the received body; verify the exact bytes received, never re-serialised JSON',
);
