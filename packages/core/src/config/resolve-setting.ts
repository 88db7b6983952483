import { ConfigError } from '../errors/config-error';
import { ENV_VARIABLES, processEnvironment, type ConfigOption, type Environment } from './env-variables';

/**
 * One setting: the argument wins, then its `MAILROOM_*` variable. Empty strings count as missing
 * because an `.env` line like `MAILROOM_TOKEN=` is a forgotten value, not a deliberate empty token.
 */
export function optionalSetting(
  option: ConfigOption,
  given: string | undefined,
  env: Environment = processEnvironment(),
): string | undefined {
  if (given !== undefined && given !== null) {
    if (typeof given !== 'string') {
      throw new ConfigError(option, ENV_VARIABLES[option], `Option "${option}" must be a string, got ${typeof given}.`);
    }
    if (given.trim() !== '') return given.trim();
  }
  const fromEnv = env[ENV_VARIABLES[option]];
  return fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv.trim() : undefined;
}

/** Like {@link optionalSetting}, but a missing value is a `ConfigError` naming the option and the variable. */
export function requiredSetting(
  option: ConfigOption,
  given: string | undefined,
  env: Environment = processEnvironment(),
  purpose = '',
  /** The name the caller's options object uses, when it differs (the management client's `user` is `managementUser`). */
  optionName: string = option,
): string {
  const value = optionalSetting(option, given, env);
  if (value === undefined) {
    const variable = ENV_VARIABLES[option];
    const why = purpose ? ` ${purpose}` : '';
    throw new ConfigError(
      optionName,
      variable,
      `Missing setting "${optionName}".${why} Pass { ${optionName}: ... } or set the environment variable ${variable}.`,
    );
  }
  return value;
}
