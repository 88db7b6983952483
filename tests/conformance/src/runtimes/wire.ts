// How a message, an error and a started target's settings cross between the test process and an app
// running in another runtime: JSON, with bytes as base64 and a received message's methods and getters
// turned into plain values (and back, on the test side).

/** What a remote app is started with: the receiver settings that are data, the clock, and where to call back. */
export interface RemoteConfig {
  /** Which app: the Hono adapter's, core's Web entry alone (`Deno.serve`, `Bun.serve`), in Elysia, or the Cloudflare entry's. */
  app: RemoteAppKind;
  options: Record<string, unknown>;
  /** Settings a Worker reads from its bindings (the keys, for the Cloudflare entry), not from its options. */
  bindings: Record<string, string>;
  nowMs: number;
  bridgeUrl: string;
  /** The failure-callback endpoint validates `sourceBody` with the suite's destination. */
  failureSourceIsDefinition: boolean;
}

export type RemoteAppKind = 'hono' | 'web' | 'workers' | 'elysia' | 'elysia-parsed-first';

/** An error as it crosses: its class name, message and the fields the suite reads. */
export interface WireError {
  name: string;
  message: string;
  reason?: string;
  seconds?: number;
  status?: number;
  code?: string;
}

const BYTES = '$bytes';
const TEXT = '$text';
// A field present but undefined (`data: undefined`) is not the same as one absent, and JSON drops it.
const UNDEFINED = '$undefined';

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Any value to JSON-safe data: bytes as `{ $bytes }`, a received message with its headers and `text()`. */
export function encode(value: unknown): unknown {
  if (value === undefined) return { [UNDEFINED]: true };
  if (value instanceof Uint8Array) return { [BYTES]: toBase64(value) };
  if (Array.isArray(value)) return value.map(encode);
  if (value instanceof Error) {
    const { name, message } = value;
    const fields = value as Error & Partial<WireError>;
    return { name, message, reason: fields.reason, seconds: fields.seconds, status: fields.status, code: fields.code };
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = encode((value as Record<string, unknown>)[key]);
  const message = value as { text?: unknown; headers?: unknown; forwardedHeaders?: unknown; rawBody?: unknown };
  if (typeof message.text === 'function' && message.rawBody instanceof Uint8Array) {
    out.headers = encode(message.headers);
    out.forwardedHeaders = encode(message.forwardedHeaders);
    out[TEXT] = (message.text as () => string)();
  }
  return out;
}

/** The inverse of {@link encode}, on the test side: bytes back to `Uint8Array`, `text()` back to a method. */
export function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if (record[UNDEFINED] === true) return undefined;
  if (typeof record[BYTES] === 'string') return Uint8Array.from(atob(record[BYTES]), (char) => char.charCodeAt(0));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) if (key !== TEXT) out[key] = decode(item);
  if (typeof record[TEXT] === 'string') {
    const text = record[TEXT];
    out.text = () => text;
  }
  return out;
}
