import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeRequest } from './node-request';

/**
 * The `verify` callback for `express.json()` and other body-parser parsers: keeps the exact bytes
 * on `req.rawBody` while the parser builds `req.body`, so apps with a global JSON parser can still
 * have signatures checked. `readInbound` looks there first.
 *
 * @example
 * import express from 'express';
 * import { captureRawBody } from '@mailroom/core';
 *
 * app.use(express.json({ verify: captureRawBody }));
 */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  (req as NodeRequest).rawBody = buf;
}
