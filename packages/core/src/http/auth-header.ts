import { ValidationError } from '../errors/validation-error';
import type { TransportAuth } from './transport-types';

/**
 * The `Authorization` header value for the transport's credentials, validating them first so a bad
 * setting fails at construction with a message naming it, not later as a vague 401.
 *
 * @example
 * authorizationHeader({ kind: 'bearer', token: 'tok' })                  // 'Bearer tok'
 * authorizationHeader({ kind: 'basic', user: 'me@x.io', password: 'k' }) // 'Basic bWVAeC5pbzpr'
 */
export function authorizationHeader(auth: TransportAuth): string {
  if (auth === null || typeof auth !== 'object') {
    throw new ValidationError('auth', "expected { kind: 'bearer', token } or { kind: 'basic', user, password }");
  }
  if (auth.kind === 'bearer') {
    assertCredential('auth.token', auth.token, 'the messaging token (MAILROOM_TOKEN)');
    // Unlike Basic credentials the token goes on the wire verbatim, so it must be a valid header value.
    if (!/^[\x21-\x7e]+$/.test(auth.token)) {
      throw new ValidationError(
        'auth.token',
        'must be printable ASCII without spaces; check that the whole token was copied and nothing else',
      );
    }
    return `Bearer ${auth.token}`;
  }
  if (auth.kind === 'basic') {
    assertCredential('auth.user', auth.user, 'the account e-mail (MAILROOM_MANAGEMENT_USER)');
    assertCredential('auth.password', auth.password, 'the management API key (MAILROOM_MANAGEMENT_PASSWORD)');
    // RFC 7617: the first ':' ends the user-id, so a user containing one cannot be expressed.
    if (auth.user.includes(':')) throw new ValidationError('auth.user', 'must not contain ":" (HTTP Basic cannot carry it)');
    return `Basic ${base64Utf8(`${auth.user}:${auth.password}`)}`;
  }
  throw new ValidationError('auth.kind', `must be 'bearer' or 'basic', got ${JSON.stringify((auth as { kind: unknown }).kind)}`);
}

function assertCredential(path: string, value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new ValidationError(path, `is required: set ${what}`);
  }
  // A trailing newline from a copied secret or an env file is the usual culprit; fetch would reject
  // it anyway, with a message that names neither the option nor the cause.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (value !== value.trim() || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new ValidationError(path, 'contains leading/trailing whitespace or a control character; check how the secret was copied');
  }
}

/**
 * Base64 of the UTF-8 bytes of `text`, with `btoa` so it works where `node:buffer` does not
 * (`btoa` alone only takes Latin-1 and would throw on, say, an e-mail with a non-ASCII character).
 *
 * @example base64Utf8('é') // 'w6k='
 */
export function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
