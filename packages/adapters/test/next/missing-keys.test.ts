import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMailroom } from '../../src/next';
import { createMailroom as createPagesMailroom } from '../../src/next-pages';

afterEach(() => vi.restoreAllMocks());

describe('missing signing keys', () => {
  it('are reported once per process however many App Router and Pages Router helpers are created (next build loads every route), naming the variables', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    createMailroom({ env: {} });
    createPagesMailroom({ env: {} });
    createMailroom({ env: {} });
    expect(warn).toHaveBeenCalledTimes(1);
    for (const [line] of warn.mock.calls) expect(line).toMatch(/MAILROOM_CURRENT_SIGNING_KEY.*MAILROOM_NEXT_SIGNING_KEY/);
  });
});
