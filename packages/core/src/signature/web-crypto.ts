/**
 * Types taken from the `crypto` global rather than the DOM lib, which this package does not load.
 */
export type WebCrypto = typeof globalThis.crypto;
export type HmacKey = Awaited<ReturnType<WebCrypto['subtle']['importKey']>>;

/** Web Crypto, present on Node >= 19, Deno, Bun, browsers, workers and edge runtimes. */
export function webCrypto(): WebCrypto | undefined {
  const candidate = (globalThis as { crypto?: WebCrypto }).crypto;
  return typeof candidate?.subtle?.digest === 'function' ? candidate : undefined;
}

const encoder = new TextEncoder();

/** SHA-256 of the exact bytes; a string is hashed as its UTF-8 encoding. */
export async function sha256(data: Uint8Array | string): Promise<Uint8Array> {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  // Web Crypto refuses views of a SharedArrayBuffer (a TypeError), which node:crypto hashes fine;
  // a copy keeps both verifier implementations on the same verdict for the same bytes.
  const digestible = bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
  return new Uint8Array(await crypto.subtle.digest('SHA-256', digestible));
}
