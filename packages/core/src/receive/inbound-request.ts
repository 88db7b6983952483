import type { HeaderLookup } from '../headers/header-lookup';

/**
 * What every adapter hands the receiving pipeline: plain data, no framework objects, so one pipeline
 * serves Express, Next.js, NestJS and the Web `Request` alike.
 */
export interface InboundRequest {
  method: string;
  /** The path and query as received (e.g. Express `req.originalUrl`), or an absolute URL. */
  url?: string;
  headers: HeaderLookup;
  /** The exact bytes of the body: the signature covers these, never a re-serialisation. */
  rawBody: Uint8Array;
}

/** What the pipeline answers; adapters copy it onto their framework's response. */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
