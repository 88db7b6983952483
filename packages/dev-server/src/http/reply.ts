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
  res.writeHead(reply.status ?? 200, {
    ...(reply.json === undefined ? {} : { 'Content-Type': 'application/json' }),
    'Content-Length': String(Buffer.byteLength(body)),
    ...reply.headers,
  });
  res.end(body);
}

/** Writes `{"error": message}` with `status`. */
export function writeError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  writeReply(res, { status, json: { error: message }, headers });
}
