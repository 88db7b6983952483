/**
 * `@mailroom/core/undici`: a Node transport for the clients over undici connection pools. A subpath
 * of its own, with undici an optional peer dependency, so edge runtimes never load it.
 */
export { createUndiciTransport, type UndiciTransport, type UndiciTransportOptions } from './create-undici-transport';
export type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from '../http/http-transport';
