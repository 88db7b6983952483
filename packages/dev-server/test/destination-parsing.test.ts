import { describe, expect, it } from 'vitest';
import { parseDestination } from '../src/engine/enqueue-target';

describe('parseDestination', () => {
  it('takes a URL verbatim, query included', () => {
    expect(parseDestination('https://app.test/hook?a=1&b=%20x')).toEqual({ kind: 'url', url: 'https://app.test/hook?a=1&b=%20x' });
    expect(parseDestination('http://127.0.0.1:3000/')).toEqual({ kind: 'url', url: 'http://127.0.0.1:3000/' });
  });

  it('reads a percent-encoded URL and a scheme whose // a proxy merged', () => {
    expect(parseDestination('https%3A%2F%2Fapp.test%2Fhook%3Fa%3D1')).toEqual({ kind: 'url', url: 'https://app.test/hook?a=1' });
    expect(parseDestination('https:/app.test/hook')).toEqual({ kind: 'url', url: 'https://app.test/hook' });
  });

  it('tells groups and API names apart', () => {
    expect(parseDestination('orders')).toEqual({ kind: 'group', name: 'orders', looksLikeHost: false });
    expect(parseDestination('app.test')).toEqual({ kind: 'group', name: 'app.test', looksLikeHost: true });
    expect(parseDestination('api/llm')).toEqual({ kind: 'api', name: 'api/llm' });
  });

  it.each(['ftp://x.test/a', 'app.test/hook', 'mailto:a@b.test', 'http://exa mple.test/'])('refuses %s with 400', (tail) => {
    expect(() => parseDestination(tail)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
