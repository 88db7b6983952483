import { MailroomError } from './mailroom-error';

/** A required setting is missing or unusable. The message names the option and its variable. */
export class ConfigError extends MailroomError {
  override name = 'ConfigError';
  /** The option name as passed in code, e.g. `token`. */
  readonly option: string;
  /** The environment variable that could supply it, e.g. `MAILROOM_TOKEN`. */
  readonly variable: string | undefined;

  constructor(option: string, variable: string | undefined, message: string) {
    super('CONFIG', message);
    this.option = option;
    this.variable = variable;
  }
}
