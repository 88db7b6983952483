// @mailroom/next: App Router route handlers over the core pipeline's Web Request path. Nothing here
// imports `next` or Node built-ins, so it also runs on the edge runtime; the Pages Router helpers
// live in `@mailroom/next/pages` to keep Node's stream code out of these bundles.
export { destination, callback, failureCallback } from './app/handlers';
export { createMailroom, type NextMailroom } from './app/create-mailroom';
export type { RouteHandler } from './app/route-handler';
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from './options';
