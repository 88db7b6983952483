import type { StandardSchemaV1 } from '@standard-schema/spec';
import { SchemaValidationError } from '../contract/schema-issues-error';
import type { MaybePromise } from './maybe-promise';

/**
 * `validateWithSchema` for the receiving pipeline: the same checks and error, but a synchronous
 * schema (zod, valibot) answers synchronously instead of through an async function's promise.
 */
export function validateBody<T>(schema: StandardSchemaV1<unknown, T>, value: unknown): MaybePromise<T> {
  const result = schema['~standard'].validate(value);
  return result instanceof Promise ? result.then(outputOf) : outputOf(result);
}

function outputOf<T>(result: StandardSchemaV1.Result<T>): T {
  if (result.issues) throw new SchemaValidationError('body', result.issues);
  return result.value;
}
