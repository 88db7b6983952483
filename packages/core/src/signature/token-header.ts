import { reject } from './failure';
import { describeValue } from './describe-value';

/**
 * base64url of `{"alg":"HS256","typ":"JWT"}`, the header every signer we know of (the real service,
 * jose, `sign`) writes. Recognising it by string equality skips decoding and parsing on the hot path;
 * any other spelling goes through the full checks below.
 */
export const STANDARD_HEADER_SEGMENT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';

/**
 * Accepts only a plain HS256 JWS header. Rejected, all as `algorithm`:
 * - `alg` missing, or anything but exactly `HS256` (`none`, `HS512`, `RS256`, `hs256`, ...);
 * - `crit`, whatever its value: we implement no extension, so a token that demands one is refused
 *   (jose would accept `crit: ["b64"]` and then verify an unencoded payload);
 * - `b64`, even without `crit`, so no reader can mistake the payload encoding;
 * - `typ` other than exactly `JWT` (it may be absent).
 * Other parameters (`kid`, `cty`, `jku`, `x5u`, ...) are ignored: keys come from configuration, never
 * from the token, so nothing in the header can pick or supply one.
 */
export function checkHeader(header: Readonly<Record<string, unknown>>): void {
  if (!Object.hasOwn(header, 'alg')) reject('algorithm', 'the token header has no "alg"; only HS256 is accepted');
  if (header.alg !== 'HS256') reject('algorithm', `the token header has "alg" ${describeValue(header.alg)}; only HS256 is accepted`);
  if (Object.hasOwn(header, 'crit')) reject('algorithm', 'the token header has "crit"; no JWS extension is supported');
  if (Object.hasOwn(header, 'b64')) reject('algorithm', 'the token header has "b64"; only base64url-encoded payloads are accepted');
  if (Object.hasOwn(header, 'typ') && header.typ !== 'JWT') {
    reject('algorithm', `the token header has "typ" ${describeValue(header.typ)}; expected "JWT" or none`);
  }
}
