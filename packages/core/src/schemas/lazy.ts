import type { EnqueueResult } from './messaging';
import type { ResponseName, ResponseOf } from './responses';

/*
 * The clients' side of the schemas, without zod. Loading zod and building the schemas is most of the
 * time it takes to import core, which an app pays on each cold start of a serverless function, and
 * most apps only receive messages and enqueue them. So the schemas load with the first answer that
 * needs checking (docs/benchmarks.md has the figures), and an enqueue's usual answer needs none.
 */

let loading: Promise<typeof import('./responses')> | undefined;

/** The schemas module, loaded once, when first asked for. */
export function loadResponseSchemas(): Promise<typeof import('./responses')> {
  loading ??= import('./responses');
  return loading;
}

/**
 * Starts loading the schemas now, for a caller that knows answers to check will follow (the test
 * service, whose helpers read runs and the DLQ in a file's first test). A failure to load is left
 * to the first answer that needs them, which then rejects with it.
 */
export function preloadResponseSchemas(): void {
  loadResponseSchemas().catch(() => {});
}

/**
 * Checks `value`, the answer of `url`, against the schema `name` once the schemas are loaded.
 * @throws {ResponseValidationError} (as a rejection) naming the first offending field.
 */
export function parseAnswer<Name extends ResponseName>(name: Name, value: unknown, url: string): Promise<ResponseOf<Name>> {
  return loadResponseSchemas().then((schemas) => schemas.parseNamedResponse(name, value, url));
}

/**
 * {@link parseAnswer} with a hand-written check in front: a value `isPlain` accepts is returned as it
 * is, at once, and anything else gets zod's full parse (and its error). `isPlain` must accept only
 * values the schema returns unchanged, which a property test holds it to.
 */
export function parseAnswerFast<Name extends ResponseName>(
  name: Name,
  isPlain: (value: unknown) => value is ResponseOf<Name>,
  value: unknown,
  url: string,
): ResponseOf<Name> | Promise<ResponseOf<Name>> {
  return isPlain(value) ? value : parseAnswer(name, value, url);
}

/**
 * Whether `value` is an enqueue result that the `enqueueResult` schema would accept unchanged: the
 * answer the service sends every time. Checking it by hand costs a fraction of a zod parse, which
 * matters at thousands of enqueues a second, and needs no zod at all.
 *
 * @example isPlainEnqueueResult({ messageId: 'msg_1' }) // true
 */
export function isPlainEnqueueResult(value: unknown): value is EnqueueResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const result = value as Record<string, unknown>;
  return (
    typeof result.messageId === 'string' &&
    // JSON.parse makes `"__proto__"` an own key, which zod's copy would drop: zod decides that one.
    !Object.hasOwn(result, '__proto__') &&
    (result.deduplicated === undefined || typeof result.deduplicated === 'boolean') &&
    (result.url === undefined || typeof result.url === 'string')
  );
}
