import { ValidationError, type DestinationDefinition } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { callback, createMailroom, destination, failureCallback } from '../src';
import { options, orderPlaced } from './fixtures';

// Mistakes surface when the route is defined (app start-up), not at the first delivery.
describe('bad inputs', () => {
  it('refuses something that is not a destination definition', () => {
    expect(() => destination({ name: 'x' } as unknown as DestinationDefinition, () => {}, options)).toThrow(ValidationError);
  });

  it('refuses a handler that is not a function', () => {
    expect(() => destination(orderPlaced, 'save' as unknown as () => void, options)).toThrow(ValidationError);
    expect(() => callback(undefined as unknown as () => void, options)).toThrow(ValidationError);
    expect(() => failureCallback(42 as unknown as () => void, options)).toThrow(ValidationError);
  });

  it('refuses bad receiver settings', () => {
    expect(() => createMailroom({ ...options, maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
    expect(() => destination(orderPlaced, () => {}, { ...options, publicUrl: 'app.example.com' })).toThrow(/publicUrl/);
    expect(() => createMailroom(null as unknown as object)).toThrow(ValidationError);
  });
});
