export { ENV_VARIABLES, processEnvironment, type ConfigOption, type Environment } from './env-variables';
export { optionalSetting, requiredSetting } from './resolve-setting';
export { DEFAULT_HEADER_PREFIX, resolveHeaderPrefix } from './header-prefix';
export { checkBaseUrl } from './resolve-url';
