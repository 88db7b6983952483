const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// Value of each base64url character; -1 marks "not base64url".
const SEXTETS = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

function sextet(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (SEXTETS[code] as number) : -1;
}

const SYNTAX = /^[A-Za-z0-9_-]*$/;

/**
 * Is `text` canonical unpadded base64url (RFC 7515 section 2)? Only the 64 URL-safe characters, no
 * `=`, no whitespace, a length that is not 1 mod 4, and zero unused low bits in the last character.
 *
 * Why strict: a lenient decoder (Buffer, atob) maps several spellings to the same bytes, which makes
 * a token malleable (a second, different string that still verifies) and would let the verifier
 * implementations disagree about what is "well formed". Every decoder here runs this check first.
 *
 * @example
 * isBase64url('aGk'); // true
 * isBase64url('aGl'); // false: non-zero trailing bits
 */
export function isBase64url(text: string): boolean {
  const remainder = text.length % 4;
  if (remainder === 1 || !SYNTAX.test(text)) return false;
  if (remainder === 0) return true;
  const last = sextet(text, text.length - 1);
  return (last & (remainder === 2 ? 0x0f : 0x03)) === 0;
}

/** Turns one segment of a token into bytes, or `undefined` when it is not canonical base64url. */
export type SegmentDecoder = (segment: string) => Uint8Array | undefined;

/**
 * Decodes canonical unpadded base64url (see isBase64url), `undefined` for anything else. Plain JS,
 * for runtimes without Buffer; the node verifier swaps in Buffer behind the same check.
 *
 * @example
 * decodeBase64url('aGk'); // Uint8Array [104, 105]
 */
export const decodeBase64url: SegmentDecoder = (text) => (isBase64url(text) ? decodeChecked(text) : undefined);

function decodeChecked(text: string): Uint8Array {
  const out = new Uint8Array((text.length * 3) >>> 2);
  const remainder = text.length % 4;
  const whole = text.length - remainder;
  let o = 0;
  for (let i = 0; i < whole; i += 4) {
    const n = (sextet(text, i) << 18) | (sextet(text, i + 1) << 12) | (sextet(text, i + 2) << 6) | sextet(text, i + 3);
    out[o++] = n >>> 16;
    out[o++] = (n >>> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  if (remainder === 0) return out;
  const a = sextet(text, whole);
  const b = sextet(text, whole + 1);
  out[o++] = (a << 2) | (b >>> 4);
  if (remainder === 3) out[o] = ((b & 0x0f) << 4) | (sextet(text, whole + 2) >>> 2);
  return out;
}

/**
 * Encodes bytes as unpadded base64url, the JWS spelling. Plain JS so it runs on every runtime.
 *
 * @example
 * encodeBase64url(new Uint8Array([104, 105])); // 'aGk'
 */
export function encodeBase64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]!;
  }
  return out;
}
