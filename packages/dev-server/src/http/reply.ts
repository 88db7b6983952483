import type { ServerResponse } from 'node:http';

/** What a handler answers: a JSON value, or nothing (200 with an empty body, as the service does for writes). */
export interface Reply {
  status?: number;
  json?: unknown;
  headers?: Record<string, string>;
}

/** A 200 with a JSON body. */
export const json = (value: unknown): Reply => ({ json: value });
/** A 200 with an empty body. */
export const empty = (): Reply => ({});

/** Writes a reply. */
export function writeReply(res: ServerResponse, reply: Reply): void {
  const body = reply.json === undefined ? '' : JSON.stringify(reply.json);
  // Built by assignment rather than spreads: this runs for every enqueue.
  const headers: Record<string, string> = {};
  if (reply.json !== undefined) headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(body));
  if (reply.headers) Object.assign(headers, reply.headers);
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
}

/** Writes `{"error": message}` with `status`. */
export function writeError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  writeReply(res, { status, json: { error: message }, headers });
}
