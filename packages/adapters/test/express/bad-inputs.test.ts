import { ValidationError, type DestinationDefinition } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { createMailroom } from '../../src/express';
import { orderPlaced, receiverOptions } from '@mailroom/test-support';

// Mistakes surface when the route is defined (app start-up), not at the first delivery.
describe('bad inputs', () => {
  it('refuses something that is not a destination definition', () => {
    expect(() => createMailroom(receiverOptions).destination({ name: 'x' } as unknown as DestinationDefinition, () => {})).toThrow(
      ValidationError,
    );
  });

  it('refuses a handler that is not a function', () => {
    expect(() => createMailroom(receiverOptions).destination(orderPlaced, 'save' as unknown as () => void)).toThrow(ValidationError);
    expect(() => createMailroom(receiverOptions).callback(undefined as unknown as () => void)).toThrow(ValidationError);
    expect(() => createMailroom(receiverOptions).failureCallback(42 as unknown as () => void)).toThrow(ValidationError);
  });

  it('refuses bad receiver settings', () => {
    expect(() => createMailroom({ ...receiverOptions, maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
    expect(() => createMailroom({ ...receiverOptions, publicUrl: 'app.example.com' }).destination(orderPlaced, () => {})).toThrow(
      /publicUrl/,
    );
    expect(() => createMailroom(null as unknown as object)).toThrow(ValidationError);
  });
});
