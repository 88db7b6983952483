// Input generators for the reliability properties. Tokens are taken apart and rebuilt straight from
// node:crypto and Buffer (through ../signature/forge-token.ts), never with the code under test, so a
// bug in src/signature cannot hide in a generator that shares it.
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { CURRENT_KEY, NEXT_KEY, NOW, OTHER_KEY, URL, b64url, hashBody } from '../signature/forge-token';

/** HMAC of a signing input as a signature segment, with SHA-384 too (forge-token's helper is typed for SHA-256 and SHA-512). */
export function hmac(signingInput: string, key: string, hash: 'sha256' | 'sha384' | 'sha512'): string {
  return createHmac(hash, Buffer.from(key, 'utf8')).update(signingInput).digest('base64url');
}

export const B64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Characters a strict base64url reader must refuse, some of which lenient decoders silently skip. */
export const NON_B64URL = ['+', '/', '=', ' ', '.', '\0', '\n', '\r', '\t', '%', '*', '"', '\\', 'é', '€', '\u{1F600}', '\uFEFF', '\uD800'];

// ---------------------------------------------------------------------------------------------------
// Genuine material: what `sign` produced with a configured key, and everything derived from it.

/** A body a genuine token was made for, in the form `sign` was given it. */
export type BodySource = string | Uint8Array;

const encoder = new TextEncoder();

/** The exact bytes a body stands for: the verifier hashes a string as UTF-8. */
export function bytesOf(body: BodySource): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.byteLength === b.byteLength &&
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
  );
}

/** Bodies the genuine tokens are signed over: JSON, empty, binary, non-ASCII and a lone surrogate. */
export const GENUINE_BODIES: readonly BodySource[] = [
  '{"orderId":"1234","total":42.5,"items":["a","b"]}',
  '',
  new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x7f]),
  'héllo ✓ 𝄞',
  new Uint8Array(2048).map((_, i) => (i * 31) & 0xff),
  'lone \uD800 surrogate',
];

export const CONFIGURED_KEYS = [CURRENT_KEY, NEXT_KEY] as const;

/**
 * Keys an attacker might try: unknown ones, and near misses of the configured ones (a prefix, a
 * suffix, other letter case, surrounding whitespace), which must fail exactly like any other.
 */
const ATTACKER_KEYS = [
  OTHER_KEY,
  '',
  'sig_',
  CURRENT_KEY.slice(0, -1),
  `${CURRENT_KEY}x`,
  ` ${CURRENT_KEY}`,
  `${NEXT_KEY}\n`,
  CURRENT_KEY.toUpperCase(),
  CURRENT_KEY + NEXT_KEY,
] as const;

// ---------------------------------------------------------------------------------------------------
// Token mutations (the attacker's view: no configured key).

type Segment = 0 | 1 | 2;
const segmentIndex = fc.constantFrom<Segment>(0, 1, 2);

/** A header an attacker might re-encode a token with, as an object or as raw JSON text. */
const hostileHeader: fc.Arbitrary<Record<string, unknown> | string> = fc.oneof(
  fc.record(
    {
      alg: fc.constantFrom<unknown>(
        'HS256',
        'HS384',
        'HS512',
        'none',
        'None',
        'NONE',
        '',
        'RS256',
        'ES256',
        'PS256',
        'EdDSA',
        'hs256',
        'HS256 ',
        null,
        42,
        ['HS256'],
      ),
      typ: fc.constantFrom<unknown>('JWT', 'jwt', 'at+jwt', 'JOSE', 1),
      kid: fc.constantFrom<unknown>('current', 'next', '../../etc/passwd', ''),
      jku: fc.constant('https://attacker.example/jwks.json'),
      jwk: fc.constant({ kty: 'oct', k: b64url('attacker') }),
      crit: fc.constantFrom<unknown>(['b64'], [], 'b64', ['exp']),
      b64: fc.boolean(),
    },
    { requiredKeys: ['alg'] },
  ),
  fc.constantFrom(
    '{"alg":"HS256","typ":"JWT"}',
    '{"typ":"JWT","alg":"HS256"}',
    '{"alg":"HS256","typ":"JWT"} ',
    '{"alg":"none","alg":"HS256"}',
    '{"alg":"HS256","alg":"none"}',
    '{"alg":"HS256"',
    '\uFEFF{"alg":"HS256","typ":"JWT"}',
    '["HS256"]',
    'null',
    '"HS256"',
    '{}',
  ),
);

/** A claim value of the wrong shape, as JSON text (so `1e400`, `-0` and `1.0` can be written). */
const oddClaimText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('"1700000000"', '""', '"now"', 'null', 'true', 'false', '[]', '{}', '[1700000000]', '{"$date":1700000000}'),
  fc.constantFrom('1e400', '-1e400', '-0', '0', '-1', '1.5', '1700000000.5', '1.0', '1E3', '9007199254740993', '1e21', '0.1e10'),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.integer({ min: -(2 ** 40), max: -1 }).map(String),
  fc.string({ maxLength: 12 }).map((text) => JSON.stringify(text)),
);

const CLAIM_NAMES = ['iss', 'sub', 'iat', 'nbf', 'exp', 'jti', 'body'] as const;
type ClaimName = (typeof CLAIM_NAMES)[number];
const claimName = fc.constantFrom<ClaimName>(...CLAIM_NAMES);

type ClaimEdit =
  | { op: 'set'; name: string; valueText: string }
  | { op: 'delete'; name: ClaimName }
  /** The claim written twice: the odd value first or last, the other one genuine. */
  | { op: 'duplicate'; name: ClaimName; valueText: string; oddFirst: boolean };

const claimEdit: fc.Arbitrary<ClaimEdit> = fc.oneof(
  fc.record({
    op: fc.constant('set' as const),
    name: fc.oneof(claimName, fc.constantFrom('__proto__', 'constructor', 'aud', '')),
    valueText: oddClaimText,
  }),
  fc.record({ op: fc.constant('delete' as const), name: claimName }),
  fc.record({ op: fc.constant('duplicate' as const), name: claimName, valueText: oddClaimText, oddFirst: fc.boolean() }),
);

/**
 * Claims as JSON text, from `[name, JSON text]` members. Written by hand so a member can repeat,
 * which `JSON.stringify` cannot express.
 */
export function claimsText(members: ReadonlyArray<readonly [string, string]>): string {
  return `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
}

/** Applies claim edits to genuine claims, as `[name, JSON text]` members in order. */
function editClaims(claims: Readonly<Record<string, unknown>>, edits: readonly ClaimEdit[]): Array<[string, string]> {
  let members: Array<[string, string]> = Object.entries(claims).map(([name, value]) => [name, JSON.stringify(value)]);
  for (const edit of edits) {
    if (edit.op === 'delete') {
      members = members.filter(([name]) => name !== edit.name);
    } else if (edit.op === 'set') {
      const at = members.findIndex(([name]) => name === edit.name);
      if (at >= 0) members[at] = [edit.name, edit.valueText];
      else members.push([edit.name, edit.valueText]);
    } else {
      const genuine = JSON.stringify(claims[edit.name] ?? null);
      members = members.filter(([name]) => name !== edit.name);
      members.push(
        ...((edit.oddFirst
          ? [
              [edit.name, edit.valueText],
              [edit.name, genuine],
            ]
          : [
              [edit.name, genuine],
              [edit.name, edit.valueText],
            ]) as Array<[string, string]>),
      );
    }
  }
  return members;
}

export type TokenMutation =
  | { kind: 'flip-bit'; segment: Segment; byte: number; bit: number }
  | { kind: 'set-char'; segment: Segment; position: number; char: string }
  | { kind: 'swap'; a: Segment; b: Segment }
  | { kind: 'copy'; from: Segment; to: Segment }
  | { kind: 'reencode-header'; header: Record<string, unknown> | string }
  | { kind: 'alg-none'; alg: string; signature: 'empty' | 'keep' | 'garbage' }
  | { kind: 'resign'; key: string; hash: 'sha256' | 'sha384' | 'sha512'; alg: string }
  | { kind: 'resign-configured-wrong-alg'; key: string; hash: 'sha256' | 'sha384' | 'sha512'; alg: string }
  | { kind: 'edit-claims'; edits: readonly ClaimEdit[] }
  | { kind: 'huge'; segment: Segment; length: number; char: string }
  | { kind: 'empty'; segment: Segment }
  | { kind: 'dots'; how: 'drop-first' | 'drop-last' | 'extra-segment' | 'leading' | 'trailing' | 'doubled' | 'only-dots' }
  | { kind: 'truncate'; at: number }
  | { kind: 'append'; text: string }
  | { kind: 'pad'; segment: Segment; text: string }
  | { kind: 'case'; segment: Segment; upper: boolean }
  | { kind: 'standard-base64'; segment: Segment };

const HMAC_ALGS = ['HS256', 'HS384', 'HS512'] as const;

export const tokenMutation: fc.Arbitrary<TokenMutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('flip-bit' as const),
      segment: segmentIndex,
      byte: fc.nat(),
      bit: fc.integer({ min: 0, max: 7 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('set-char' as const),
      segment: segmentIndex,
      position: fc.nat(),
      char: fc.oneof(fc.constantFrom(...B64URL_ALPHABET), fc.constantFrom(...NON_B64URL)),
    }),
  },
  fc.record({ kind: fc.constant('swap' as const), a: segmentIndex, b: segmentIndex }),
  fc.record({ kind: fc.constant('copy' as const), from: segmentIndex, to: segmentIndex }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reencode-header' as const), header: hostileHeader }) },
  fc.record({
    kind: fc.constant('alg-none' as const),
    alg: fc.constantFrom('none', 'None', 'NONE', 'nOnE', ''),
    signature: fc.constantFrom<'empty' | 'keep' | 'garbage'>('empty', 'keep', 'garbage'),
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('resign' as const),
      key: fc.constantFrom(...ATTACKER_KEYS),
      hash: fc.constantFrom<'sha256' | 'sha384' | 'sha512'>('sha256', 'sha384', 'sha512'),
      alg: fc.constantFrom(...HMAC_ALGS, 'none', 'RS256'),
    }),
  },
  fc
    .record({
      kind: fc.constant('resign-configured-wrong-alg' as const),
      key: fc.constantFrom(...CONFIGURED_KEYS),
      hash: fc.constantFrom<'sha256' | 'sha384' | 'sha512'>('sha256', 'sha384', 'sha512'),
      alg: fc.constantFrom(...HMAC_ALGS, 'none', 'RS256', 'hs256'),
    })
    // HS256 over SHA-256 with a configured key is a genuine signature, not a forgery.
    .filter((m) => !(m.alg === 'HS256' && m.hash === 'sha256')),
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('edit-claims' as const), edits: fc.array(claimEdit, { minLength: 1, maxLength: 3 }) }),
  },
  fc.record({
    kind: fc.constant('huge' as const),
    segment: segmentIndex,
    length: fc.oneof(fc.integer({ min: 0, max: 9000 }), fc.constantFrom(8192, 8193, 65_536, 1_000_000)),
    char: fc.constantFrom('A', '_', 'e', '+'),
  }),
  fc.record({ kind: fc.constant('empty' as const), segment: segmentIndex }),
  fc.record({
    kind: fc.constant('dots' as const),
    how: fc.constantFrom('drop-first', 'drop-last', 'extra-segment', 'leading', 'trailing', 'doubled', 'only-dots'),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), text: fc.constantFrom('=', '==', '.', ' ', '\n', '\0', 'A', 'AA', '.x', '.e30') }),
  fc.record({ kind: fc.constant('pad' as const), segment: segmentIndex, text: fc.constantFrom('=', '==', '===', ' ', '\t') }),
  fc.record({ kind: fc.constant('case' as const), segment: segmentIndex, upper: fc.boolean() }),
  fc.record({ kind: fc.constant('standard-base64' as const), segment: segmentIndex }),
);

/** Applies one mutation to a compact token; `claims` are the genuine token's claims. */
export function mutateToken(token: string, mutation: TokenMutation, claims: Readonly<Record<string, unknown>>): string {
  const segments = token.split('.');
  const at = (index: Segment): string => segments[index] ?? '';
  const join = (): string => segments.join('.');
  switch (mutation.kind) {
    case 'flip-bit': {
      const bytes = Buffer.from(at(mutation.segment), 'base64url');
      if (bytes.length === 0) return token;
      const index = mutation.byte % bytes.length;
      bytes[index] = (bytes[index] ?? 0) ^ (1 << mutation.bit);
      segments[mutation.segment] = bytes.toString('base64url');
      return join();
    }
    case 'set-char': {
      const segment = at(mutation.segment);
      const position = segment.length === 0 ? 0 : mutation.position % segment.length;
      segments[mutation.segment] = segment.slice(0, position) + mutation.char + segment.slice(position + 1);
      return join();
    }
    case 'swap': {
      const a = at(mutation.a);
      segments[mutation.a] = at(mutation.b);
      segments[mutation.b] = a;
      return join();
    }
    case 'copy':
      segments[mutation.to] = at(mutation.from);
      return join();
    case 'reencode-header': {
      const { header } = mutation;
      segments[0] = b64url(typeof header === 'string' ? header : JSON.stringify(header));
      return join();
    }
    case 'alg-none':
      segments[0] = b64url(JSON.stringify({ alg: mutation.alg, typ: 'JWT' }));
      if (mutation.signature === 'empty') segments[2] = '';
      if (mutation.signature === 'garbage') segments[2] = b64url('none');
      return join();
    case 'resign':
    case 'resign-configured-wrong-alg': {
      const header = b64url(JSON.stringify({ alg: mutation.alg, typ: 'JWT' }));
      const payload = at(1);
      return `${header}.${payload}.${hmac(`${header}.${payload}`, mutation.key, mutation.hash)}`;
    }
    case 'edit-claims':
      segments[1] = b64url(claimsText(editClaims(claims, mutation.edits)));
      return join();
    case 'huge':
      segments[mutation.segment] = mutation.char.repeat(mutation.length);
      return join();
    case 'empty':
      segments[mutation.segment] = '';
      return join();
    case 'dots':
      switch (mutation.how) {
        case 'drop-first':
          return token.replace('.', '');
        case 'drop-last':
          return token.slice(0, token.lastIndexOf('.')) + token.slice(token.lastIndexOf('.') + 1);
        case 'extra-segment':
          return `${token}.${at(2)}`;
        case 'leading':
          return `.${token}`;
        case 'trailing':
          return `${token}.`;
        case 'doubled':
          return token.replace('.', '..');
        case 'only-dots':
          return '..';
      }
      return token;
    case 'truncate':
      return token.slice(0, mutation.at % (token.length + 1));
    case 'append':
      return token + mutation.text;
    case 'pad':
      segments[mutation.segment] = at(mutation.segment) + mutation.text;
      return join();
    case 'case':
      segments[mutation.segment] = mutation.upper ? at(mutation.segment).toUpperCase() : at(mutation.segment).toLowerCase();
      return join();
    case 'standard-base64':
      // The same bytes in standard base64 with padding: a lenient decoder would read them alike.
      segments[mutation.segment] = Buffer.from(at(mutation.segment), 'base64url').toString('base64');
      return join();
  }
}

// ---------------------------------------------------------------------------------------------------
// Body and URL mutations, and the forms a body can be handed to `verify` in.

type BodyForm = 'as-given' | 'uint8array' | 'buffer' | 'subarray-view' | 'shared-array-buffer' | 'string';
const bodyForm = fc.constantFrom<BodyForm>(
  'as-given',
  'as-given',
  'uint8array',
  'buffer',
  'subarray-view',
  'shared-array-buffer',
  'string',
);

/**
 * The same bytes in another container. `string` decodes them as UTF-8, which changes the bytes when
 * they are not valid UTF-8: the oracle compares bytes, so that counts as another body.
 */
function inForm(bytes: Uint8Array, form: BodyForm, original: BodySource): BodySource {
  switch (form) {
    case 'as-given':
      return original;
    case 'uint8array':
      return new Uint8Array(bytes);
    case 'buffer':
      return Buffer.from(bytes);
    case 'subarray-view': {
      const backing = new Uint8Array(bytes.byteLength + 7).fill(0x41);
      backing.set(bytes, 3);
      return backing.subarray(3, 3 + bytes.byteLength);
    }
    case 'shared-array-buffer': {
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
      shared.set(bytes);
      return shared;
    }
    case 'string':
      return new TextDecoder().decode(bytes);
  }
}

export type BodyMutation =
  | { kind: 'none'; form: BodyForm }
  | { kind: 'flip-bit'; byte: number; bit: number }
  | { kind: 'append'; byte: number }
  | { kind: 'drop-last' }
  | { kind: 'other'; index: number }
  | { kind: 'random'; bytes: Uint8Array; form: BodyForm }
  | { kind: 'reserialised' };

export const bodyMutation: fc.Arbitrary<BodyMutation> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('none' as const), form: bodyForm }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('flip-bit' as const), byte: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }) },
  fc.record({ kind: fc.constant('append' as const), byte: fc.constantFrom(0x00, 0x20, 0x0a, 0x3d, 0xff) }),
  fc.record({ kind: fc.constant('drop-last' as const) }),
  fc.record({ kind: fc.constant('other' as const), index: fc.nat() }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 300 }), form: bodyForm }) },
  fc.record({ kind: fc.constant('reserialised' as const) }),
);

/** The body handed to `verify` after a body mutation. */
export function mutateBody(original: BodySource, mutation: BodyMutation): BodySource {
  const bytes = bytesOf(original);
  switch (mutation.kind) {
    case 'none':
      return inForm(bytes, mutation.form, original);
    case 'flip-bit': {
      if (bytes.byteLength === 0) return new Uint8Array([1 << (mutation.bit % 8)]);
      const copy = new Uint8Array(bytes);
      const index = mutation.byte % copy.byteLength;
      copy[index] = (copy[index] ?? 0) ^ (1 << mutation.bit);
      return copy;
    }
    case 'append':
      return Buffer.concat([bytes, Buffer.from([mutation.byte])]);
    case 'drop-last':
      return bytes.subarray(0, Math.max(0, bytes.byteLength - 1));
    case 'other':
      return GENUINE_BODIES[mutation.index % GENUINE_BODIES.length] ?? '';
    case 'random':
      return inForm(mutation.bytes, mutation.form === 'as-given' ? 'uint8array' : mutation.form, mutation.bytes);
    case 'reserialised': {
      // What a framework's JSON parser and JSON.stringify would hand over: the classic mistake.
      const text = new TextDecoder().decode(bytes);
      try {
        return JSON.stringify(JSON.parse(text), null, 1);
      } catch {
        return `${text} `;
      }
    }
  }
}

export type UrlMutation = 'same' | 'omit' | 'trailing-slash' | 'upper-host' | 'query' | 'other' | 'http' | 'empty';

/** Mostly the signed URL, else a near miss of it, another URL, or none (the subject is then not checked). */
export const urlMutation = fc.oneof(
  { weight: 3, arbitrary: fc.constant<UrlMutation>('same') },
  fc.constantFrom<UrlMutation>('omit', 'trailing-slash', 'upper-host', 'query', 'other', 'http', 'empty'),
);

/** The `url` handed to `verify`; `undefined` leaves the subject unchecked. */
export function mutateUrl(mutation: UrlMutation): string | undefined {
  switch (mutation) {
    case 'same':
      return URL;
    case 'omit':
      return undefined;
    case 'trailing-slash':
      return `${URL}/`;
    case 'upper-host':
      return URL.replace('example.com', 'EXAMPLE.com');
    case 'query':
      return `${URL}?a=1`;
    case 'other':
      return 'https://attacker.example/api/webhooks/mailroom';
    case 'http':
      return URL.replace('https:', 'http:');
    case 'empty':
      return '';
  }
}

// ---------------------------------------------------------------------------------------------------
// Key-holder tokens: signed with any key over claims of any shape, judged by an independent model.

/** A time claim around NOW: mostly sane integers, sometimes each kind of wrong. */
const timeClaimText: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: NOW - 400, max: NOW + 400 }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: NOW - 400, max: NOW + 400 }).map((n) => JSON.stringify(String(n))) },
  { weight: 1, arbitrary: fc.double({ min: NOW - 400, max: NOW + 400, noNaN: true }).map((n) => JSON.stringify(n)) },
  { weight: 1, arbitrary: fc.integer({ min: NOW - 400, max: NOW + 400 }).map((n) => `${n}.0`) },
  { weight: 1, arbitrary: fc.integer({ min: -(NOW + 400), max: -1 }).map(String) },
  { weight: 1, arbitrary: oddClaimText },
);

export interface KeyHolderToken {
  /** Header as JSON text. */
  headerText: string;
  /** Claims as `[name, JSON text]` members; a name may repeat. */
  members: Array<[string, string]>;
  key: string;
}

const stringClaimText = (genuine: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 20, arbitrary: fc.constant(JSON.stringify(genuine)) },
    oddClaimText,
    fc.constantFrom('"Upstash"', '"service"', `"${URL}/"`, '""'),
  );

const headerText: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('{"alg":"HS256","typ":"JWT"}') },
  fc.constantFrom(
    '{"alg":"HS256"}',
    '{"typ":"JWT","alg":"HS256"}',
    '{"alg":"HS256","typ":"JWT","kid":"k1"}',
    '{"alg":"HS256","typ":"jwt"}',
    '{"alg":"HS512","typ":"JWT"}',
    '{"alg":"none","typ":"JWT"}',
    '{"alg":"HS256","crit":["exp"],"exp":1}',
    '{"alg":"HS256","b64":true}',
    '{"alg":"none","alg":"HS256"}',
    '{"alg":"HS256","alg":"none"}',
    '{"typ":"JWT"}',
  ),
);

/**
 * A token as a key holder could make it: header and claims of any shape, body claim right, padded,
 * wrong or missing, sometimes a claim written twice, signed with a configured or an unknown key.
 */
export function keyHolderToken(bodyHash: string): fc.Arbitrary<KeyHolderToken> {
  return fc
    .record({
      headerText,
      key: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...CONFIGURED_KEYS) }, fc.constantFrom(...ATTACKER_KEYS)),
      iss: stringClaimText('Service'),
      sub: stringClaimText(URL),
      jti: stringClaimText('jwt_fuzz'),
      body: fc.oneof(
        { weight: 12, arbitrary: fc.constant(JSON.stringify(bodyHash)) },
        { weight: 3, arbitrary: fc.constant(JSON.stringify(`${bodyHash}=`)) },
        fc.constantFrom(
          JSON.stringify(`${bodyHash}==`),
          JSON.stringify(hashBody('other')),
          JSON.stringify(bodyHash.toUpperCase()),
          '12',
          'null',
        ),
        oddClaimText,
      ),
      shape: fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .integer({ min: NOW - 320, max: NOW + 20 })
            .map((iat) => ({ iat: String(iat), nbf: String(iat), exp: String(iat + 300) })),
        },
        { weight: 2, arbitrary: fc.record({ iat: timeClaimText, nbf: timeClaimText, exp: timeClaimText }) },
      ),
      omit: fc.oneof({ weight: 8, arbitrary: fc.constant<ClaimName[]>([]) }, fc.subarray([...CLAIM_NAMES], { minLength: 1, maxLength: 2 })),
      // Each in about one token out of six.
      duplicate: fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        fc.record({ name: claimName, valueText: fc.oneof(oddClaimText, timeClaimText), oddFirst: fc.boolean() }),
      ),
      extra: fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        fc.constantFrom<[string, string]>(['aud', '"x"'], ['__proto__', '{"iss":"Service"}'], ['nested', '{"a":[1,2,{"b":null}]}']),
      ),
    })
    .map(({ headerText: header, key, iss, sub, jti, body, shape, omit, duplicate, extra }) => {
      let members: Array<[string, string]> = [
        ['iss', iss],
        ['sub', sub],
        ['iat', shape.iat],
        ['nbf', shape.nbf],
        ['exp', shape.exp],
        ['jti', jti],
        ['body', body],
      ];
      members = members.filter(([name]) => !(omit as readonly string[]).includes(name));
      if (extra) members.push(extra);
      if (duplicate) {
        const genuine = members.find(([name]) => name === duplicate.name)?.[1] ?? 'null';
        members = members.filter(([name]) => name !== duplicate.name);
        members.push(
          ...((duplicate.oddFirst
            ? [
                [duplicate.name, duplicate.valueText],
                [duplicate.name, genuine],
              ]
            : [
                [duplicate.name, genuine],
                [duplicate.name, duplicate.valueText],
              ]) as Array<[string, string]>),
        );
      }
      return { headerText: header, members, key };
    });
}

// ---------------------------------------------------------------------------------------------------
// Strings for the header builder: mostly harmless, often hostile.

/** RFC 9110 token characters. */
const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const HOSTILE_CHARS = [
  '\r',
  '\n',
  '\0',
  ' ',
  '\t',
  ':',
  '\x7f',
  '\x85',
  '\xff',
  '\u0100',
  '\u2028',
  '\uFEFF',
  '\uD800',
  'é',
  '(',
  '@',
  '"',
];

const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 16 }) },
  fc.string({ unit: 'binary', maxLength: 16 }),
  fc.string({ unit: fc.constantFrom('a', 'B', '1', ...HOSTILE_CHARS), maxLength: 12 }),
  fc.constantFrom(
    '',
    ' ',
    '\t',
    ' padded ',
    'a\r\nInjected: 1',
    'a\nb',
    'a\rb',
    'nul\0',
    'tab\tinside',
    'latin1 \xe9\xff',
    'wide \u0100',
    'line\u2028sep',
  ),
);

const headerName: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 12 }) },
  fc.constantFrom(
    'X-Tenant',
    'x-tenant',
    'X-TENANT',
    'Authorization',
    'Content-Type',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'a',
  ),
  fc.string({ unit: fc.constantFrom(...TOKEN_CHARS.slice(0, 20), ...HOSTILE_CHARS), minLength: 1, maxLength: 8 }),
  fc.constantFrom('', 'X Y', 'X:Y', 'X\r\nY', 'é'),
);

/** Mostly a valid value, now and then a hostile one: each run then reaches deep into the builder. */
function mostly<T>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 12, arbitrary: valid }, hostile);
}

/** Forwarded headers as a plain record (possibly null-prototype, with `__proto__` as an own key). */
export const headerRecord: fc.Arbitrary<Record<string, string>> = fc
  .array(fc.tuple(headerName, fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: 12 }) }, hostileText)), { maxLength: 4 })
  .chain((entries) =>
    fc.boolean().map((nullPrototype) => {
      const record: Record<string, string> = nullPrototype ? (Object.create(null) as Record<string, string>) : {};
      // defineProperty, so `__proto__` becomes an ordinary own key as JSON.parse would make it.
      for (const [name, value] of entries)
        Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
      return record;
    }),
  );

const durationInput: fc.Arbitrary<unknown> = mostly(
  fc.oneof(fc.nat({ max: 100_000 }), fc.constantFrom('30s', '5m', '1h', '1d', '1d10h30m', '0s', '1h30m')),
  fc.oneof(
    fc.constantFrom(
      '90',
      's',
      '1x',
      '1s1s',
      '1m1h',
      '-1s',
      '1.5s',
      ' 1s',
      '1s\r\n',
      '99999999999999999999d',
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 53,
      null,
      true,
    ),
    fc.string({ unit: fc.constantFrom('1', '0', 's', 'm', 'h', 'd', ' ', '\n'), maxLength: 8 }),
  ),
);

const retryDelayInput: fc.Arbitrary<unknown> = mostly(
  fc.constantFrom('1000', '1000 * (1 + retried)', 'pow(2, retried) * 1000', 'max(1000, pow(2, retried) * 100)', '\t1000'),
  fc.oneof(
    fc.constantFrom('1000 +\r\n 1', '1000\n', '1000 +\n retried', '1 +\0 1', 'retried**2', '', 42, null, {}, []),
    fc.string({ unit: fc.constantFrom('1', '0', 'retried', ' ', '+', '*', '(', ')', '\n', '\r', '\t', 'pow(2,', ','), maxLength: 8 }),
    // A hand-made stand-in for parseRetryDelay's result: its `source` goes on the wire as it is.
    fc.record({ source: fc.oneof(hostileText, fc.constantFrom('1000', 'x\r\nEvil: 1', 'garbage')) }),
  ),
);

const urlInput: fc.Arbitrary<unknown> = mostly(
  fc.constantFrom('https://app.test/cb', 'http://127.0.0.1:3000/hook?x=1', 'https://app.test/a%0D%0AX:1', 'HTTPS://APP.TEST/'),
  fc.oneof(
    fc.constantFrom(
      'https://app.test/a\r\nX: y',
      'https://app.test/\0',
      'ftp://app.test',
      'app.test/cb',
      'https://',
      'https://app.test/é',
      'https://exa mple.com',
      '',
      42,
      null,
    ),
    hostileText.map((text) => `https://app.test/${text}`),
  ),
);

/** `Timeout` takes only s, m and h. */
const timeoutInput: fc.Arbitrary<unknown> = mostly(
  fc.oneof(fc.nat({ max: 100_000 }), fc.constantFrom('30s', '5m', '1h', '1h30m', '0s')),
  fc.constantFrom('1d', '1d10h30m', '1s1s', '-1s', '1s\r\n', -1, 1.5, Number.NaN, null),
);

const deliverySettings = {
  method: mostly(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
    fc.constantFrom('get', 'CONNECT', '', 'POST\r\n', 7),
  ),
  timeout: timeoutInput,
  retries: mostly(fc.nat({ max: 30 }), fc.constantFrom(-1, 1.5, Number.NaN, '3', null, 2 ** 53)),
  retryDelay: retryDelayInput,
  delay: durationInput,
  headers: mostly(
    fc.oneof(
      headerRecord,
      headerRecord.map((record) => toHeadersObject(record)),
    ),
    fc.constantFrom(null, 'X-A: 1', ['X-A', '1']),
  ),
};

/** A `Headers` built from a record when Headers accepts it, else the record itself. */
function toHeadersObject(record: Record<string, string>): Headers | Record<string, string> {
  try {
    return new Headers(Object.entries(record));
  } catch {
    return record;
  }
}

const callbackTarget: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: urlInput },
  { weight: 6, arbitrary: fc.record({ url: urlInput, ...deliverySettings }, { requiredKeys: ['url'] }) },
  fc.record({ url: urlInput, notAnOption: fc.constant(1) }),
);

/**
 * Enqueue options of every shape: each option present or not, each mostly plausible, with hostile
 * strings (CR, LF, NUL, non-Latin-1) and wrong types mixed in.
 */
export const enqueueOptionsInput: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      ...deliverySettings,
      contentType: mostly(fc.constantFrom('application/json', 'text/plain; charset=utf-8'), hostileText),
      notBefore: mostly(fc.nat({ max: 2_000_000_000 }), fc.constantFrom(new Date(0), new Date(Number.NaN), 1e12, -1, 1.5, '1700000000')),
      callback: callbackTarget,
      failureCallback: callbackTarget,
      deduplicationId: mostly(fc.constantFrom('order-1', 'dedup_2'), hostileText),
      contentBasedDeduplication: mostly(fc.boolean(), fc.constantFrom('true', 1)),
      label: mostly(fc.constant('billing'), hostileText),
      workflow: mostly(
        fc.record(
          { runId: mostly(fc.constant('wfr_1'), hostileText), url: urlInput, createdAt: mostly(fc.nat(), fc.constantFrom(-1, 1.5, '1')) },
          { requiredKeys: ['runId', 'url'] },
        ),
        fc.constantFrom(null, 'wfr_1'),
      ),
    },
    { requiredKeys: [] },
  )
  .chain((options) =>
    fc.integer({ min: 0, max: 9 }).map((dice) => {
      // delay and notBefore together are refused by design; keep that case, but rare.
      if (options.delay !== undefined && options.notBefore !== undefined && dice !== 0) delete options.notBefore;
      return options;
    }),
  );

/** Like {@link enqueueOptionsInput}, now and then with an option that does not exist. */
export const enqueueOptionsWithUnknown: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(enqueueOptionsInput, fc.integer({ min: 0, max: 49 }))
  .map(([options, dice]) => (dice === 0 ? { ...options, notAnOption: true } : options));
