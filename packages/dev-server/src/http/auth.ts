import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DevCredentials } from '../credentials';
import { HttpError } from './http-error';

/**
 * Messaging auth: `Authorization: Bearer <token>`. The full token may call everything; the read-only
 * token only GETs (403 otherwise, as service-facts says); anything else is 401.
 */
export function checkMessagingAuth(req: IncomingMessage, credentials: DevCredentials): void {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) throw new HttpError(401, 'missing or malformed Authorization header: expected "Bearer <token>"');
  const token = match[1]!;
  if (safeEqual(token, credentials.token)) return;
  if (safeEqual(token, credentials.readOnlyToken)) {
    if (req.method === 'GET') return;
    throw new HttpError(403, 'the read-only token may only call GET endpoints');
  }
  throw new HttpError(401, 'invalid token');
}

/** Management auth: HTTP Basic with the management user and password. */
export function checkManagementAuth(req: IncomingMessage, credentials: DevCredentials): void {
  const challenge = { 'WWW-Authenticate': 'Basic realm="mailroom management"' };
  const match = /^Basic\s+(.+)$/i.exec((req.headers.authorization ?? '').trim());
  if (!match) throw new HttpError(401, 'missing or malformed Authorization header: expected Basic credentials', challenge);
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  // Both compared, always: stopping at a wrong user would tell which half was right by timing.
  const userOk = safeEqual(user, credentials.managementUser);
  const passwordOk = safeEqual(password, credentials.managementPassword);
  if (!userOk || !passwordOk) throw new HttpError(401, 'invalid management credentials', challenge);
}

function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
