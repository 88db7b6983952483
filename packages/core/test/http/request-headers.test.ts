import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { mergeRequestHeaders } from '../../src/http/requester';

describe('mergeRequestHeaders', () => {
  it('lower-cases names, trims values as Headers does, and lets the caller override a default', () => {
    const target: Record<string, string> = { accept: 'application/json' };
    mergeRequestHeaders(target, { Accept: 'text/plain', 'X-Tenant': '  acme\t' });
    expect(target).toEqual({ accept: 'text/plain', 'x-tenant': 'acme' });
  });

  it('combines names that differ only in case, as Headers does', () => {
    const target: Record<string, string> = {};
    mergeRequestHeaders(target, { 'X-A': '1', 'x-a': '2' });
    expect(target).toEqual(
      Object.fromEntries(
        new Headers([
          ['X-A', '1'],
          ['x-a', '2'],
        ]),
      ),
    );
  });

  it('keeps a header named __proto__ as an ordinary one', () => {
    const given = Object.fromEntries([['__proto__', 'x']]) as Record<string, string>;
    const target: Record<string, string> = {};
    mergeRequestHeaders(target, given);
    expect(Object.keys(target)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
  });

  it('takes a Headers object as it is', () => {
    const target: Record<string, string> = {};
    mergeRequestHeaders(target, new Headers({ 'Content-Type': 'text/plain' }));
    expect(target).toEqual({ 'content-type': 'text/plain' });
  });

  it.each([[{ 'bad name': 'x' }], [{ ok: 'line\nbreak' }], [{ ok: 'nul\0' }], [{ ok: 'wide \u0100' }], [{ ok: 3 }], [[['a', 'b']]]])(
    'refuses a bad name or value, a non-string value and anything but a record or Headers: %j',
    (given) => {
      expect(() => mergeRequestHeaders({}, given as never)).toThrow(ValidationError);
      expect(() => mergeRequestHeaders({}, given as never)).toThrow('headers: invalid header');
    },
  );
});
