import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { DestinationDefinition } from '../contract/define-destination';
import type { CallbackOptions } from './callback-message';
import type { ReceiverOptions } from './receiver-options';

/** Any Standard Schema (zod, valibot, arktype, ...). */
export type Schema = StandardSchemaV1;

/** What a callback's `sourceBody` may be checked with: a schema, or the destination it was sent to. */
export type SourceSchema = Schema | DestinationDefinition | undefined;

/** What a callback's `body` (the destination's answer) may be checked with. */
export type ResponseSchema = Schema | undefined;

/** Receiver settings plus a callback's own schemas, for one-call `callback(handler, options)` helpers. */
export type CallbackHandlerOptions<S extends SourceSchema = undefined, R extends ResponseSchema = undefined> = ReceiverOptions &
  CallbackOptions<S, R>;
