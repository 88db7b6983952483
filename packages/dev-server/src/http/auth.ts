import { timingSafeEqual } from 'node:crypto';
import type { DevCredentials } from '../credentials';
import { ServiceError } from '../errors';

// Who is calling: a Bearer token (full or read-only), or Basic credentials.

/** Which token a messaging request carried. */
type MessagingAccess = 'full' | 'read-only';

/**
 * Messaging auth: `Authorization: Bearer <token>`: the full token, the read-only token (what it may
 * call is the route table's decision, in the router), or 401.
 */
export function checkMessagingAuth(authorization: string | string[] | undefined, credentials: DevCredentials): MessagingAccess {
  const header = typeof authorization === 'string' ? authorization : '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) throw new ServiceError(401, 'missing or malformed Authorization header: expected "Bearer <token>"');
  const token = match[1]!;
  if (safeEqual(token, credentials.token)) return 'full';
  if (safeEqual(token, credentials.readOnlyToken)) return 'read-only';
  throw new ServiceError(401, 'invalid token');
}

/** Management auth: HTTP Basic with the management user and password. */
export function checkManagementAuth(authorization: string | string[] | undefined, credentials: DevCredentials): void {
  const challenge = { 'WWW-Authenticate': 'Basic realm="mailroom management"' };
  const match = /^Basic\s+(.+)$/i.exec((typeof authorization === 'string' ? authorization : '').trim());
  if (!match) throw new ServiceError(401, 'missing or malformed Authorization header: expected Basic credentials', challenge);
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  // Both compared, always: stopping at a wrong user would tell which half was right by timing.
  const userOk = safeEqual(user, credentials.managementUser);
  const passwordOk = safeEqual(password, credentials.managementPassword);
  if (!userOk || !passwordOk) throw new ServiceError(401, 'invalid management credentials', challenge);
}

function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
