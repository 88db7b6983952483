// @mailroom/next/pages: Pages Router API routes over the core Node bridge. A separate entry so the
// App Router entry (`@mailroom/next`) never pulls Node stream code into edge bundles.
export { destination, callback, failureCallback } from './handlers';
export { createMailroom, type PagesMailroom } from './create-mailroom';
export type { ApiHandler } from './api-handler';
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '../options';
