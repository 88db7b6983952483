// Type-only imports: erased at build time, so no bundler ever sees node:crypto or node:buffer here.
import type * as NodeBuffer from 'node:buffer';
import type * as NodeCrypto from 'node:crypto';

/** The parts of node:crypto and node:buffer the fast verifier uses. */
export interface NodeBuiltins {
  readonly crypto: Pick<typeof NodeCrypto, 'createHash' | 'createHmac' | 'createSecretKey'> &
    // One-shot digest, Node >= 20.12; absent from some Node look-alikes.
    Partial<Pick<typeof NodeCrypto, 'hash'>>;
  readonly Buffer: typeof NodeBuffer.Buffer;
}

const CRYPTO_FUNCTIONS = ['createHash', 'createHmac', 'createSecretKey'];

/**
 * Finds node:crypto and node:buffer without importing them, so the same bundle runs on Node and on
 * edge runtimes.
 *
 * - A static `import 'node:crypto'` breaks edge bundles (Next's edge runtime refuses node modules).
 * - A dynamic `import()` is asynchronous, and the point of this path is a synchronous verify.
 * - `process.getBuiltinModule` (Node >= 20.16, also Bun and Deno) is synchronous and invisible to
 *   bundlers. It is reached through `globalThis`, because bundlers pattern-match the free `process`
 *   identifier (Next warns about `process.*` in edge code).
 *
 * Feature detection, not version sniffing: browser polyfills fake `process.versions.node`, and
 * Next's edge sandbox defines `getBuiltinModule` as a stub that throws when called. So: no
 * `EdgeRuntime` global, a `getBuiltinModule` that returns modules which really have the functions we
 * call, and no exception on the way. Anything else means "use Web Crypto".
 *
 * @example
 * loadNodeBuiltins()?.crypto.createHmac('sha256', 'key'); // a Hmac on Node, undefined on the edge
 */
export function loadNodeBuiltins(host: object = globalThis): NodeBuiltins | undefined {
  try {
    if (typeof (host as { EdgeRuntime?: unknown }).EdgeRuntime === 'string') return undefined;
    const processObject = (host as { process?: { getBuiltinModule?: unknown } }).process;
    const getBuiltinModule = processObject?.getBuiltinModule;
    if (typeof getBuiltinModule !== 'function') return undefined;
    const crypto: unknown = getBuiltinModule.call(processObject, 'node:crypto');
    const buffer: unknown = getBuiltinModule.call(processObject, 'node:buffer');
    if (!hasFunctions(crypto, CRYPTO_FUNCTIONS) || !hasFunctions(buffer, ['Buffer'])) return undefined;
    return { crypto, Buffer: buffer.Buffer } as unknown as NodeBuiltins;
  } catch {
    return undefined;
  }
}

function hasFunctions(candidate: unknown, names: readonly string[]): candidate is Record<string, (...args: never[]) => unknown> {
  if (typeof candidate !== 'object' || candidate === null) return false;
  return names.every((name) => typeof (candidate as Record<string, unknown>)[name] === 'function');
}
