import type { IncomingMessage } from 'node:http';

/**
 * An `IncomingMessage` as frameworks leave it: parsers hang extra fields on the request, and these
 * are the ones that tell us where the body went.
 */
export type NodeRequest = IncomingMessage & {
  /** Bytes a parser captured before consuming the stream (NestJS `rawBody: true`, `captureRawBody`). */
  rawBody?: unknown;
  /** What a parser produced: a Buffer (express.raw), a string (express.text), an object (express.json). */
  body?: unknown;
  /** body-parser's "I already read this stream" flag (Express 4 and 5). */
  _body?: unknown;
};
