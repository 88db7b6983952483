import type { ServerResponse } from 'node:http';

// What a route handler answers, and its writing as the service writes answers.

/** A JSON value, or nothing (200 with an empty body, as the service does for writes). */
export interface Reply {
  status?: number;
  json?: unknown;
  headers?: Record<string, string>;
}

/** A 200 with a JSON body. */
export const json = (value: unknown): Reply => ({ json: value });
/** A 200 with an empty body. */
export const empty = (): Reply => ({});

/** The bytes of a reply: what a socket gets, and what an in-process client gets. */
function replyBody(reply: Reply): string {
  return reply.json === undefined ? '' : JSON.stringify(reply.json);
}

/** A reply's headers, `Content-Type` and `Content-Length` included. */
function replyHeaders(reply: Reply, body: string): Record<string, string> {
  // Built by assignment rather than spreads: this runs for every enqueue.
  const headers: Record<string, string> = {};
  if (reply.json !== undefined) headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(body));
  if (reply.headers) Object.assign(headers, reply.headers);
  return headers;
}

/** Writes a reply to a socket. */
export function writeReply(res: ServerResponse, reply: Reply): void {
  const body = replyBody(reply);
  res.writeHead(reply.status ?? 200, replyHeaders(reply, body));
  res.end(body);
}

/** `{"error": message}` with `status`. */
export const errorReply = (status: number, message: string, headers: Record<string, string> = {}): Reply => ({
  status,
  json: { error: message },
  headers,
});
