// @mailroom/express: Express 4 and 5 route handlers over the core receiving pipeline.
export { destination, callback, failureCallback } from './handlers';
export { createMailroom, type ExpressMailroom } from './create-mailroom';
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from './options';
// Re-exported so an app with a global `express.json()` needs only this package to keep the raw bytes.
export { captureRawBody } from '@mailroom/core';
export type { MailroomRequestHandler } from './request-handler';
export type { ExpressOptions } from './serve-endpoint';
