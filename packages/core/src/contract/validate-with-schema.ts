import type { StandardSchemaV1 } from '@standard-schema/spec';
import { SchemaValidationError } from './schema-issues-error';

/**
 * Runs any Standard Schema (zod, valibot, arktype, ...) and returns its output, or throws a
 * `SchemaValidationError` naming `subject`. Synchronous schemas stay synchronous-cost: we only await
 * when the library returned a promise.
 */
export async function validateWithSchema<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
  subject: string,
): Promise<StandardSchemaV1.InferOutput<S>> {
  let result = schema['~standard'].validate(value);
  if (result instanceof Promise) result = await result;
  if (result.issues) throw new SchemaValidationError(subject, result.issues);
  return result.value as StandardSchemaV1.InferOutput<S>;
}

/** True when `value` carries the `~standard` interface of Standard Schema v1. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.['~standard'];
  return typeof props === 'object' && props !== null && props.version === 1 && typeof props.validate === 'function';
}
