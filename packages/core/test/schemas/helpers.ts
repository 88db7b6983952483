import { expect } from 'vitest';
import type { z } from 'zod';
import { ResponseValidationError } from '../../src/errors';
import { parseResponse } from '../../src/schemas';

export const URL = 'https://mailroom.test/v2/resource';

/** Parses and returns the ResponseValidationError it must throw, failing the test when it does not. */
export function responseError(schema: z.ZodType, value: unknown): ResponseValidationError {
  try {
    parseResponse(schema, value, URL);
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseValidationError);
    return error as ResponseValidationError;
  }
  throw new Error('expected a ResponseValidationError, but the value parsed');
}

/** A deep copy, so a test can break a fixture without touching the shared one. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}
