import { NEST_METADATA_KEYS, type DiscoveredWrapper } from './metadata';
import {
  ConfigError,
  ValidationError,
  createManagementClient,
  createMessagingClient,
  createReceiver,
  type InboundRequest,
  type ManagementClient,
  type ManagementClientOptions,
  type MessagingClient,
  type MessagingClientOptions,
  type ReceiveStage,
  type Receiver,
  type ReceiverOptions,
} from '@mailroom/core';
import { createManagementClientNow, createMessagingClientNow, idempotencyGuard } from '@mailroom/core/adapter';
import { resolveHeaderPrefix } from '@mailroom/core/internal-protocol';
import { ConfigurableModuleBuilder, Inject, Logger, type Provider } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/** Requester settings of the messaging client; its identity settings sit at the top level. */
export type MessagingTransportOptions = Omit<MessagingClientOptions, 'baseUrl' | 'token' | 'appUrl' | 'headerPrefix' | 'env'>;

/**
 * Settings of `MailroomModule`: the receiver's (signing keys, header prefix, issuer, `publicUrl`,
 * body limit...), the messaging client's, and optionally the management client's. Every setting
 * falls back to its `MAILROOM_*` variable, read from `env` (default `process.env`).
 */
export interface MailroomModuleOptions extends ReceiverOptions {
  /** Messaging base URL. Env: `MAILROOM_URL`. */
  baseUrl?: string;
  /** Messaging token. Env: `MAILROOM_TOKEN`. */
  token?: string;
  /** Public base URL of this app, for `client.send(definition, ...)`. Env: `MAILROOM_APP_URL`. */
  appUrl?: string;
  /** Requester settings of the messaging client (fetch, retry, timeoutMs, userAgent). */
  messaging?: MessagingTransportOptions;
  /**
   * Management client settings. Given (even `{}`, to read `MAILROOM_MANAGEMENT_*`), the client is
   * created at start-up and a missing setting fails the start. Left out, the client is created only
   * when its variables are set.
   */
  management?: ManagementClientOptions;
}

/** Options known before the async factory runs. */
export interface MailroomModuleExtras {
  /** Register the module globally, so feature modules need not import it. Default `false`. */
  isGlobal?: boolean;
}

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

// What `@Inject(token)` records.
const { constructorDependencies: CONSTRUCTOR_DEPENDENCIES, propertyDependencies: PROPERTY_DEPENDENCIES } = NEST_METADATA_KEYS;

/**
 * The names of the classes and factories that inject `token`: explicit `@Inject(token)` on a
 * constructor parameter or a property, or `inject: [token]` on a factory provider. Type-based
 * injection cannot name a string token, so nothing else can reach it.
 */
export function dependentsOf(
  reflector: Reflector,
  wrappers: readonly DiscoveredWrapper[],
  token: string,
  ignore: readonly Function[],
): string[] {
  const names = new Set<string>();
  for (const wrapper of wrappers) {
    const { metatype } = wrapper;
    if (typeof metatype !== 'function' || ignore.includes(metatype)) continue;
    // A factory's metatype is the factory function; its name says nothing, the provider token does.
    if (wrapper.inject) {
      if (wrapper.inject.some((dependency) => dependency === token || (dependency as { token?: unknown } | null)?.token === token)) {
        names.add(`provider ${describeToken(wrapper.name)}`);
      }
      continue;
    }
    const parameters = reflector.get<Array<{ param?: unknown }> | undefined>(CONSTRUCTOR_DEPENDENCIES, metatype) ?? [];
    const properties = reflector.get<Array<{ type?: unknown }> | undefined>(PROPERTY_DEPENDENCIES, metatype) ?? [];
    if (parameters.some((dependency) => dependency.param === token) || properties.some((dependency) => dependency.type === token)) {
      names.add(metatype.name);
    }
  }
  return [...names];
}

function describeToken(token: unknown): string {
  if (typeof token === 'function') return token.name;
  return typeof token === 'symbol' ? token.toString() : String(token);
}

/**
 * `forRoot` / `forRootAsync` from Nest's builder, with `isGlobal` as an extra so it is known even
 * when the options themselves come from an async factory. `MAILROOM_MODULE_OPTIONS` is the injection
 * token of the resolved `MailroomModuleOptions`.
 */
export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN: MAILROOM_MODULE_OPTIONS } =
  new ConfigurableModuleBuilder<MailroomModuleOptions>({
    optionsInjectionToken: 'MAILROOM_MODULE_OPTIONS',
  })
    .setClassMethodName('forRoot')
    .setExtras<MailroomModuleExtras>({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal === true }))
    .build();

// Injection tokens are strings, not symbols: a string survives two copies of this package in one
// app (an ESM and a CJS build, or two versions), where two `Symbol()`s would never match.

/**
 * Injection token of the `MessagingClient` (`@mailroom/core`).
 *
 * @example
 * constructor(@Inject(MAILROOM_MESSAGING_CLIENT) private readonly mailroom: MessagingClient) {}
 */
export const MAILROOM_MESSAGING_CLIENT = 'MAILROOM_MESSAGING_CLIENT';

/**
 * Injection token of the `ManagementClient` (`@mailroom/core`).
 *
 * @example
 * constructor(@Inject(MAILROOM_MANAGEMENT_CLIENT) private readonly management: ManagementClient) {}
 */
export const MAILROOM_MANAGEMENT_CLIENT = 'MAILROOM_MANAGEMENT_CLIENT';

/**
 * Injection token of the core `Receiver` every guard and filter of the module verifies with.
 *
 * @example
 * constructor(@Inject(MAILROOM_RECEIVER) private readonly receiver: Receiver) {}
 */
export const MAILROOM_RECEIVER = 'MAILROOM_RECEIVER';

const UNCONFIGURED = Symbol.for('@mailroom/nestjs.unconfigured');

/**
 * Stands in for a client whose settings are missing, so an app that only receives (or only sends)
 * boots without settings it never uses. Every call throws the core's `ConfigError`, which names the
 * option and the variable; the start-up checks fail earlier when a class injects it.
 *
 * A plain object rather than a Proxy: Nest probes every provider for lifecycle hooks
 * (`onModuleInit` ...), and a Proxy that throws on any property would crash that probe.
 */
function unconfiguredMessagingClient(error: ConfigError, headerPrefix: string): MessagingClient {
  // The shape of a real client (never used to send), every method replaced: nothing to keep in step
  // when the client grows a method.
  const shape = createMessagingClient({ baseUrl: 'http://unconfigured.invalid', token: 'unconfigured', headerPrefix, env: {} });
  return mark(failingCopy(shape, error), error);
}

function failingCopy<T extends object>(shape: T, error: ConfigError): T {
  const fail = (): never => {
    throw error;
  };
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(shape)) {
    copy[name] = typeof value === 'function' ? fail : typeof value === 'object' && value !== null ? failingCopy(value, error) : value;
  }
  return copy as T;
}

/** Like {@link unconfiguredMessagingClient}, for the management interface. */
function unconfiguredManagementClient(error: ConfigError): ManagementClient {
  const shape = createManagementClient({ baseUrl: 'http://unconfigured.invalid', user: 'unconfigured', password: 'unconfigured', env: {} });
  return mark(failingCopy(shape, error), error);
}

/** The reason a client is a stand-in, or `undefined` for a real client. */
export function unconfiguredReason(client: unknown): ConfigError | undefined {
  return typeof client === 'object' && client !== null ? (client as { [UNCONFIGURED]?: ConfigError })[UNCONFIGURED] : undefined;
}

function mark<T extends object>(client: T, error: ConfigError): T {
  Object.defineProperty(client, UNCONFIGURED, { value: error });
  return client;
}

/** The receiver: created once, so keys and limits are checked when the app starts. */
export const receiverProvider: Provider<Receiver> = {
  provide: MAILROOM_RECEIVER,
  useFactory: (options: MailroomModuleOptions) => {
    // The module's default store is checked when the app starts, not at the first delivery.
    idempotencyGuard(options.idempotency, 'MailroomModule idempotency');
    return createReceiver(receiverOptions(options));
  },
  inject: [MAILROOM_MODULE_OPTIONS],
};

export const messagingClientProvider: Provider<MessagingClient> = {
  provide: MAILROOM_MESSAGING_CLIENT,
  useFactory: (options: MailroomModuleOptions) => messagingClient(options),
  inject: [MAILROOM_MODULE_OPTIONS],
};

export const managementClientProvider: Provider<ManagementClient> = {
  provide: MAILROOM_MANAGEMENT_CLIENT,
  useFactory: (options: MailroomModuleOptions) => managementClient(options),
  inject: [MAILROOM_MODULE_OPTIONS],
};

function receiverOptions(options: MailroomModuleOptions): ReceiverOptions {
  // The clients' settings stay out, so the receiver sees only its own.
  const {
    baseUrl: _baseUrl,
    token: _token,
    appUrl: _appUrl,
    messaging: _messaging,
    management: _management,
    ...receiver
  } = checkFactoryOptions(options);
  return { ...receiver, onError: receiver.onError ?? logThroughNest };
}

const logger = new Logger('Mailroom');

/** The receiver's reports in Nest's own log, one line each, never a stack or a key. */
export function logThroughNest(error: unknown, { stage, request }: { stage: ReceiveStage; request?: InboundRequest }): void {
  // Missing keys at creation: the start-up checks fail the app with that message when it has
  // Mailroom routes, and a send-only app needs no keys, so there is nothing to log here.
  if (!request && stage === 'config') return;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (stage === 'handler') logger.error(`handler failed: ${message}`);
  else logger.warn(`request refused at ${stage}: ${message}`);
}

function messagingClient(options: MailroomModuleOptions): MessagingClient {
  const { baseUrl, token, appUrl, messaging, headerPrefix, env, tracing } = checkFactoryOptions(options);
  try {
    // Read now: an app that injects a client it cannot use fails at start-up (see explorer.ts).
    return createMessagingClientNow({ ...messaging, baseUrl, token, appUrl, headerPrefix, env, ...(tracing ? { tracing } : {}) });
  } catch (error) {
    // Settings given in code mean "I want to send": a missing one is a mistake to report now. With
    // none given, this app may only receive, and must boot without a token it never uses.
    const explicit = baseUrl !== undefined || token !== undefined || messaging !== undefined;
    if (!(error instanceof ConfigError) || explicit) throw error;
    return unconfiguredMessagingClient(error, resolveHeaderPrefix(headerPrefix, env));
  }
}

function managementClient(options: MailroomModuleOptions): ManagementClient {
  const { management, env } = checkFactoryOptions(options);
  try {
    return createManagementClientNow({ env, ...management });
  } catch (error) {
    if (!(error instanceof ConfigError) || management !== undefined) throw error;
    return unconfiguredManagementClient(error);
  }
}

// Reached with forRootAsync's factory result, which no type check has seen.
function checkFactoryOptions(options: MailroomModuleOptions): MailroomModuleOptions {
  return checkOptions(options, 'The MailroomModule options factory');
}

/**
 * Injects the `MessagingClient` of `MailroomModule`: `@Inject(MAILROOM_MESSAGING_CLIENT)` by a
 * shorter name. Explicit, so it works in builds without decorator metadata (esbuild, tsup, vitest).
 *
 * @example
 * @Injectable()
 * export class Checkout {
 *   constructor(@InjectMessagingClient() private readonly mailroom: MessagingClient) {}
 *   place(order: Order) {
 *     return this.mailroom.send(orderPlaced, order);
 *   }
 * }
 */
export function InjectMessagingClient(): PropertyDecorator & ParameterDecorator {
  return Inject(MAILROOM_MESSAGING_CLIENT);
}

/**
 * Injects the `ManagementClient` of `MailroomModule` (configure it with `management: {...}` or the
 * `MAILROOM_MANAGEMENT_*` variables).
 *
 * @example
 * constructor(@InjectManagementClient() private readonly management: ManagementClient) {}
 */
export function InjectManagementClient(): PropertyDecorator & ParameterDecorator {
  return Inject(MAILROOM_MANAGEMENT_CLIENT);
}
