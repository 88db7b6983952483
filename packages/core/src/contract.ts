// One definition for sender and receiver: `defineDestination` and the Standard Schema glue.

import { ValidationError } from './errors';
import type { StandardSchemaV1 } from '@standard-schema/spec';

/** Turns Standard Schema issue paths into `items.0.sku`, the form our errors use everywhere. */
function issuePath(issue: StandardSchemaV1.Issue): string {
  return (issue.path ?? []).map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment)).join('.');
}

/** A payload or a received body broke its destination's schema. `issues` keeps every problem found. */
export class SchemaValidationError extends ValidationError {
  override name = 'SchemaValidationError';
  readonly issues: ReadonlyArray<StandardSchemaV1.Issue>;

  constructor(subject: string, issues: ReadonlyArray<StandardSchemaV1.Issue>) {
    const listed = issues
      .slice(0, 5)
      .map((issue) => `${issuePath(issue) || '(root)'}: ${issue.message}`)
      .join('; ');
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    super(subject, `does not match its schema: ${listed}${more}`, undefined, 'SCHEMA_VALIDATION');
    this.issues = issues;
  }
}

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

/**
 * One definition shared by the sender and the receiver: `client.send(def, payload)` is type-checked
 * against the schema's input, and the receiving handler gets the schema's output as `message.body`.
 */
export interface DestinationDefinition<S extends StandardSchemaV1 = StandardSchemaV1> {
  /** A stable name, used in logs and as the default path (`/<name>`). */
  readonly name: string;
  /** The path the receiving app serves this destination at; default `/<name>`. */
  readonly path: string;
  /** Any Standard Schema: zod is the documented default. */
  readonly schema: S;
  /** Brand so a plain object cannot pass for a definition by accident. */
  readonly kind: 'mailroom.destination';
}

/** What the sender must pass: the schema's input type. */
export type PayloadOf<D extends DestinationDefinition> = StandardSchemaV1.InferInput<D['schema']>;
/** What the handler receives: the schema's output type. */
export type BodyOf<D extends DestinationDefinition> = StandardSchemaV1.InferOutput<D['schema']>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Defines a typed destination.
 *
 * @example
 * import { z } from 'zod';
 * export const orderPlaced = defineDestination({
 *   name: 'order-placed',
 *   schema: z.object({ orderId: z.string(), total: z.number() }),
 * });
 * // sender:   await client.send(orderPlaced, { orderId: 'o1', total: 12 });
 * // receiver: app.post(orderPlaced.path, destination(orderPlaced, (m) => m.body.orderId));
 */
export function defineDestination<S extends StandardSchemaV1>(definition: {
  name: string;
  path?: string;
  schema: S;
}): DestinationDefinition<S> {
  if (definition === null || typeof definition !== 'object') {
    throw new ValidationError('definition', 'expected { name, path?, schema }');
  }
  const { name, path, schema } = definition;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ValidationError('name', `expected letters, digits, ".", "_" or "-" (like "order-placed"), got ${JSON.stringify(name)}`);
  }
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/') || /[\s?#]/.test(path))) {
    throw new ValidationError(
      'path',
      `expected an absolute path such as "/api/${name}" without query or spaces, got ${JSON.stringify(path)}`,
    );
  }
  if (!isStandardSchema(schema)) {
    throw new ValidationError('schema', 'expected a Standard Schema (for example a zod schema: z.object({...}))');
  }
  return Object.freeze({ name, path: path ?? `/${name}`, schema, kind: 'mailroom.destination' as const });
}

/** True for objects made by {@link defineDestination}. */
export function isDestinationDefinition(value: unknown): value is DestinationDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'mailroom.destination';
}

/** Throws the one `ValidationError` every sender and receiver gives for what is not a destination. */
export function expectDestination(value: unknown): asserts value is DestinationDefinition {
  if (!isDestinationDefinition(value)) {
    throw new ValidationError('definition', 'expected a destination made with defineDestination({ name, schema })');
  }
}
