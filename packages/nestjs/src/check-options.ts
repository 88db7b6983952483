import { ValidationError } from '@mailroom/core';
import type { MailroomModuleOptions } from './mailroom-module-options';

/** Refuses options that are not an object, from `forRoot` or from an async factory's result. */
export function checkOptions<T extends MailroomModuleOptions>(options: T, source: string): T {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    const got = options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options;
    throw new ValidationError(
      'options',
      `${source} must give an options object, got ${got}. Pass {} to read every setting from MAILROOM_* variables.`,
    );
  }
  return options;
}
