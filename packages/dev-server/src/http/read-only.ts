// What the read-only token sees, decided here for every answer of every route. A secret is a kind
// of value, not a field: anything that lets its holder write or impersonate (a delivery's signature,
// a webhook's event id, credentials in a URL, a Bearer or Basic credential, a signing key, a token)
// is hidden wherever it stands, even inside base64 inside JSON inside base64, and the same shaping
// is what that role's searches and filters match against, so they cannot find a secret piece by piece.

/** What a hidden secret reads as. */
const HIDDEN = 'REDACTED';

/** Where the service's secrets known by value come from (webhook event ids, keys, tokens). */
export interface ReadOnlyView {
  /** Every secret value the state and the credentials hold now. */
  secrets: () => readonly string[];
}

/** Secrets known by their form rather than their value. */
const BY_FORM: ReadonlyArray<[RegExp, string]> = [
  // A JWT: a delivery's `<P>-Signature`, valid for minutes at the endpoint it names.
  [/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, HIDDEN],
  // Credentials in a URL: `https://user:pass@host` keeps its scheme and host.
  [/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#@"']+@/g, `$1${HIDDEN}@`],
  // An Authorization-style credential wherever it is quoted.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${HIDDEN}`],
];

// Deep enough for the deepest nesting the views hold (a webhook call in a step in a run's history).
const MAX_NESTING = 4;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A reply for the read-only role: its body, its headers and its error text, every secret hidden. */
export function shapeForReadOnly<Reply extends { json?: unknown; headers?: Record<string, string> }>(
  reply: Reply,
  view: ReadOnlyView,
): Reply {
  const secrets = view.secrets();
  const headers = reply.headers
    ? Object.fromEntries(Object.entries(reply.headers).map(([name, value]) => [name, hideIn(value, secrets, 0)]))
    : undefined;
  return {
    ...reply,
    ...(reply.json !== undefined ? { json: hideInValue(reply.json, secrets, 0) } : {}),
    ...(headers ? { headers } : {}),
  };
}

/**
 * What a filter compares for a role: the value itself for the full token, the value as the
 * read-only role sees it otherwise, so "contains", "starts with" and "equals" cannot probe a secret.
 */
export type Shown = (value: string) => string;

export const shownAsIs: Shown = (value) => value;

export function shownToReadOnly(view: ReadOnlyView): Shown {
  let secrets: readonly string[] | undefined;
  return (value) => {
    secrets ??= view.secrets();
    return hideIn(value, secrets, 0);
  };
}

function hideInValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return hideIn(value, secrets, depth);
  if (Array.isArray(value)) return value.map((item) => hideInValue(item, secrets, depth));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [hideIn(key, secrets, depth), hideInValue(item, secrets, depth)]));
  }
  return value;
}

function hideIn(text: string, secrets: readonly string[], depth: number): string {
  let out = text;
  for (const secret of secrets) if (secret !== '' && out.includes(secret)) out = out.replaceAll(secret, HIDDEN);
  for (const [pattern, replacement] of BY_FORM) {
    pattern.lastIndex = 0;
    if (pattern.test(out)) out = out.replace(pattern, replacement);
  }
  if (depth >= MAX_NESTING || out.length < 16) return out;
  if (BASE64.test(out)) {
    const decoded = Buffer.from(out, 'base64').toString('utf8');
    const hidden = hideIn(decoded, secrets, depth + 1);
    return hidden === decoded ? out : Buffer.from(hidden, 'utf8').toString('base64');
  }
  if (out.startsWith('{') || out.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(out);
      const hidden = JSON.stringify(hideInValue(parsed, secrets, depth + 1));
      return hidden === JSON.stringify(parsed) ? out : hidden;
    } catch {
      return out;
    }
  }
  return out;
}
