import type { DestinationDefinition } from '@mailroom/core';

// Core does not re-export `StandardSchemaV1`; a definition's schema slot is that type, which spares
// this package a dependency on `@standard-schema/spec` just for a constraint.
/** Any Standard Schema (zod, valibot, arktype...). */
export type Schema = DestinationDefinition['schema'];

/** What a callback's `sourceBody` may be checked with: a schema, or the destination it was sent to. */
export type SourceSchema = Schema | DestinationDefinition | undefined;

/** What a callback's `body` (the destination's answer) may be checked with. */
export type ResponseSchema = Schema | undefined;
