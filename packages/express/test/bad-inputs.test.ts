import { ValidationError, type DestinationDefinition } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { callback, createMailroom, destination, failureCallback } from '../src';
import { orderPlaced, receiverOptions } from '@mailroom/test-support';

// Mistakes surface when the route is defined (app start-up), not at the first delivery.
describe('bad inputs', () => {
  it('refuses something that is not a destination definition', () => {
    expect(() => destination({ name: 'x' } as unknown as DestinationDefinition, () => {}, receiverOptions)).toThrow(ValidationError);
  });

  it('refuses a handler that is not a function', () => {
    expect(() => destination(orderPlaced, 'save' as unknown as () => void, receiverOptions)).toThrow(ValidationError);
    expect(() => callback(undefined as unknown as () => void, receiverOptions)).toThrow(ValidationError);
    expect(() => failureCallback(42 as unknown as () => void, receiverOptions)).toThrow(ValidationError);
  });

  it('refuses bad receiver settings', () => {
    expect(() => createMailroom({ ...receiverOptions, maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
    expect(() => destination(orderPlaced, () => {}, { ...receiverOptions, publicUrl: 'app.example.com' })).toThrow(/publicUrl/);
    expect(() => createMailroom(null as unknown as object)).toThrow(ValidationError);
  });
});
