import type { CallbackOptions, DestinationDefinition, IdempotencyOption } from '@mailroom/core';
import { idempotencyGuard, isDestinationDefinition, isStandardSchema } from '@mailroom/core/adapter';
import type { Reflector } from '@nestjs/core';

// Which methods declare a `@ReceivedMessage()` parameter, recorded by the decorator itself, so the
// start-up checks need neither Nest's private route-argument metadata nor `reflect-metadata`.
const methodsByClass = new WeakMap<Function, Set<string | symbol>>();

/** The parameter decorator's enhancer: remembers `Class.method` as a user of the message. */
export const recordReceivedMessageParam: ParameterDecorator = (target, key) => {
  if (key === undefined) return; // a constructor parameter: not a route argument, Nest rejects it itself
  const type = (target as { constructor: Function }).constructor;
  const methods = methodsByClass.get(type) ?? new Set<string | symbol>();
  methods.add(key);
  methodsByClass.set(type, methods);
};

/** True when `type.method` (or the method it inherits) has a `@ReceivedMessage()` parameter. */
export function usesReceivedMessage(type: Function, method: string): boolean {
  for (
    let current: unknown = type;
    typeof current === 'function' && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    if (methodsByClass.get(current)?.has(method) === true) return true;
  }
  return false;
}

// Core does not re-export `StandardSchemaV1`; a definition's schema slot is that type, which spares
// this package a dependency on `@standard-schema/spec` just for a constraint.
/** Any Standard Schema (zod, valibot, arktype...). */
export type Schema = DestinationDefinition['schema'];

/** What a callback's `sourceBody` may be checked with: a schema, or the destination it was sent to. */
export type SourceSchema = Schema | DestinationDefinition | undefined;

/** What a callback's `body` (the destination's answer) may be checked with. */
export type ResponseSchema = Schema | undefined;

/** One metadata key per kind, so two Mailroom decorators on one method are detectable, not silently merged. */
/**
 * Nest's own metadata keys, which Nest does not export from its package roots (deep imports do not
 * resolve in Nest 12): the one place to look when a Nest upgrade renames one. Unchanged from Nest 8
 * (routes, guards, status) and Nest 5 (injection) through 11 and 12; the suite runs against both.
 */
export const NEST_METADATA_KEYS = {
  guards: '__guards__',
  method: 'method',
  path: 'path',
  httpCode: '__httpCode__',
  constructorDependencies: 'self:paramtypes',
  propertyDependencies: 'self:properties_metadata',
} as const;

export const ROUTE_METADATA_KEYS = {
  message: 'mailroom:on-message',
  callback: 'mailroom:on-callback',
  failureCallback: 'mailroom:on-failure-callback',
} as const;

export type RouteKind = keyof typeof ROUTE_METADATA_KEYS;

/** What a Mailroom method decorator recorded: its kind and its argument, unchecked. */
export interface RouteMetadata {
  kind: RouteKind;
  /** `@OnMessage`: the destination definition; callbacks: their `CallbackOptions`. */
  argument: unknown;
  /** How many arguments the decorator got, to tell `@OnMessage()` from `@OnMessage(undefined)`. */
  argumentCount: number;
  /** `@OnMessage`'s second argument: the route's own settings. */
  options?: unknown;
}

/** A route whose metadata passed {@link checkRoute}. */
export type MailroomRoute = (
  | { kind: 'message'; definition: DestinationDefinition }
  | { kind: 'callback' | 'failureCallback'; options: CallbackOptions<SourceSchema, ResponseSchema> }
) & {
  /** The route's own `idempotency` (else the module's applies); `false` opts it out. */
  idempotency?: IdempotencyOption | false;
};

/** Every Mailroom decorator on a method (more than one is a mistake the start-up checks report). */
export function readRouteMetadata(reflector: Reflector, method: Function): RouteMetadata[] {
  const found: RouteMetadata[] = [];
  for (const key of Object.values(ROUTE_METADATA_KEYS)) {
    const value = reflector.get<RouteMetadata | undefined>(key, method);
    if (value !== undefined) found.push(value);
  }
  return found;
}

const DECORATOR_NAMES: Record<RouteKind, string> = {
  message: '@OnMessage',
  callback: '@OnCallback',
  failureCallback: '@OnFailureCallback',
};

/** The decorator's name as the user wrote it, for error messages. */
export function decoratorName(kind: RouteKind): string {
  return DECORATOR_NAMES[kind];
}

/** The route, or what is wrong with its decorator's argument in words the user can act on. */
export function checkRoute(metadata: RouteMetadata): MailroomRoute | { problem: string } {
  const name = decoratorName(metadata.kind);
  if (metadata.kind === 'message') {
    const definition = metadata.argument;
    if (isDestinationDefinition(definition)) {
      const options = metadata.options ?? {};
      if (typeof options !== 'object' || options === null || Array.isArray(options)) {
        return { problem: `${name}'s second argument must be an options object { idempotency? }, got ${describe(options)}` };
      }
      const { idempotency, ...unknown } = options as { idempotency?: IdempotencyOption | false };
      const extra = Object.keys(unknown);
      if (extra.length > 0)
        return { problem: `${name} got unknown option(s) ${extra.map((key) => `"${key}"`).join(', ')}; expected { idempotency? }` };
      const wrong = idempotencyProblem(name, idempotency);
      if (wrong) return { problem: wrong };
      return { kind: 'message', definition, ...(idempotency !== undefined ? { idempotency } : {}) };
    }
    const usage = `${name}(orderPlaced), where orderPlaced = defineDestination({ name, schema })`;
    if (metadata.argumentCount === 0) return { problem: `${name}() needs the destination definition: ${usage}` };
    if (isStandardSchema(definition)) return { problem: `${name} got a bare schema; wrap it in a definition: ${usage}` };
    return { problem: `${name} expects a destination definition, got ${describe(definition)}: ${usage}` };
  }
  const options = metadata.argument ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    return { problem: `${name} expects an options object { source?, response? }, got ${describe(options)}` };
  }
  const { source, response, idempotency, ...unknown } = options as { source?: unknown; response?: unknown; idempotency?: unknown };
  const extra = Object.keys(unknown);
  if (extra.length > 0)
    return {
      problem: `${name} got unknown option(s) ${extra.map((key) => `"${key}"`).join(', ')}; expected { source?, response?, idempotency? }`,
    };
  if (source !== undefined && !isDestinationDefinition(source) && !isStandardSchema(source)) {
    return { problem: `${name} option "source" must be a destination definition or a Standard Schema, got ${describe(source)}` };
  }
  if (response !== undefined && !isStandardSchema(response)) {
    return { problem: `${name} option "response" must be a Standard Schema, got ${describe(response)}` };
  }
  const wrong = idempotencyProblem(name, idempotency);
  if (wrong) return { problem: wrong };
  return {
    kind: metadata.kind,
    options: options as CallbackOptions<SourceSchema, ResponseSchema>,
    ...(idempotency !== undefined ? { idempotency: idempotency as IdempotencyOption | false } : {}),
  };
}

/** What is wrong with a route's `idempotency` option, checked at start-up by core's own rule. */
function idempotencyProblem(name: string, idempotency: unknown): string | undefined {
  try {
    idempotencyGuard(idempotency as IdempotencyOption | false | undefined);
    return undefined;
  } catch (error) {
    return `${name} option ${error instanceof Error ? error.message : String(error)}`;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'another object';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** The parts of Nest's `InstanceWrapper` the checks read (the class itself is not a public export). */
export interface DiscoveredWrapper {
  instance: unknown;
  metatype: Function | null;
  inject?: readonly unknown[] | null;
  /** The provider token's name (a class name, a string token). */
  name?: unknown;
}
