import { timingSafeEqual } from 'node:crypto';
import type { DevCredentials } from '../credentials';
import { ServiceError } from '../errors';

// Who may call (Bearer tokens, Basic credentials), and what the read-only token may see.

/** Which token a messaging request carried. */
export type MessagingAccess = 'full' | 'read-only';

/**
 * Messaging auth: `Authorization: Bearer <token>`. The full token may call everything; the read-only
 * token only GETs that answer no secret (403 otherwise, as the service does); anything else is 401.
 */
export function checkMessagingAuth(
  method: string,
  authorization: string | string[] | undefined,
  credentials: DevCredentials,
  fullTokenOnly = false,
): MessagingAccess {
  const header = typeof authorization === 'string' ? authorization : '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) throw new ServiceError(401, 'missing or malformed Authorization header: expected "Bearer <token>"');
  const token = match[1]!;
  if (safeEqual(token, credentials.token)) return 'full';
  if (safeEqual(token, credentials.readOnlyToken)) {
    if (fullTokenOnly) throw new ServiceError(403, 'the read-only token may not read the signing keys: use the full token');
    if (method === 'GET') return 'read-only';
    throw new ServiceError(403, 'the read-only token may only call GET endpoints');
  }
  throw new ServiceError(401, 'invalid token');
}

/** What a redacted secret reads as in an answer to the read-only token. */
const REDACTED_SECRET = 'REDACTED';

/**
 * An answer for the read-only token, with every secret that would let its holder write replaced: a
 * webhook's event id is the whole credential of its public URL, and run logs, step bodies and
 * histories carry it, sometimes inside base64 inside JSON inside base64.
 */
export function redactSecrets(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  return redactValue(value, secrets, 0);
}

// Deep enough for the deepest nesting the views hold (a webhook call in a step in a run's history).
const MAX_NESTING = 4;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function redactValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redactString(value, secrets, depth);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets, depth)]));
  }
  return value;
}

function redactString(text: string, secrets: readonly string[], depth: number): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED_SECRET);
  if (depth >= MAX_NESTING || out.length < 16) return out;
  if (BASE64.test(out)) {
    const decoded = Buffer.from(out, 'base64').toString('utf8');
    const redacted = redactString(decoded, secrets, depth + 1);
    return redacted === decoded ? out : Buffer.from(redacted, 'utf8').toString('base64');
  }
  if (out.startsWith('{') || out.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(out);
      const redacted = JSON.stringify(redactValue(parsed, secrets, depth + 1));
      return redacted === JSON.stringify(parsed) ? out : redacted;
    } catch {
      return out;
    }
  }
  return out;
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
