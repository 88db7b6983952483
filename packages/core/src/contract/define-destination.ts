import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ValidationError } from '../errors/validation-error';
import { isStandardSchema } from './validate-with-schema';

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
