import { describe, expect, it } from 'vitest';
import { errorBodySchema, parseResponse } from '../../src/schemas';
import { errorBodyInvalidDestination, errorBodyNotFound } from './fixtures';
import { URL, responseError } from './helpers';

describe('errorBodySchema', () => {
  it('parses the service error bodies', () => {
    expect(parseResponse(errorBodySchema, errorBodyNotFound, URL)).toEqual(errorBodyNotFound);
    expect(parseResponse(errorBodySchema, errorBodyInvalidDestination, URL).error).toContain('add http:// or https://');
  });

  it('keeps unknown keys', () => {
    expect(parseResponse(errorBodySchema, { error: 'x', code: 'E1' }, URL).code).toBe('E1');
  });

  it('requires error as a string', () => {
    expect(responseError(errorBodySchema, {}).field).toBe('error');
    expect(responseError(errorBodySchema, { error: { message: 'x' } }).message).toContain('expected string, got object');
  });
});
