import { SignatureGuard } from './guard';
import {
  NEST_METADATA_KEYS,
  ROUTE_METADATA_KEYS,
  checkRoute,
  decoratorName,
  readRouteMetadata,
  usesReceivedMessage,
  type DiscoveredWrapper,
} from './metadata';
import {
  MAILROOM_MANAGEMENT_CLIENT,
  MAILROOM_MESSAGING_CLIENT,
  MAILROOM_RECEIVER,
  MAILROOM_MODULE_OPTIONS,
  dependentsOf,
  unconfiguredReason,
  type MailroomModuleOptions,
} from './providers';
import {
  ConfigError,
  MailroomError,
  type DestinationDefinition,
  type ManagementClient,
  type MessagingClient,
  type Receiver,
} from '@mailroom/core';
import { pipelineOf } from '@mailroom/core/adapter';
import { Inject, Injectable, RequestMethod, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost, MetadataScanner, Reflector } from '@nestjs/core';

/** A controller method Mailroom verifies requests for. */
interface DiscoveredRoute {
  /** `Class.method`, for messages. */
  name: string;
}

interface RouteScan {
  routes: DiscoveredRoute[];
  problems: string[];
}

const { guards: GUARDS_METADATA, method: METHOD_METADATA, path: PATH_METADATA } = NEST_METADATA_KEYS;

/**
 * Finds every Mailroom route and everything wrong with one, the way `@nestjs/bullmq`'s explorer
 * does: a class is taken from `instance.constructor` so classes provided through factories are
 * seen too, and its methods from `MetadataScanner`.
 */
function scanRoutes(
  scanner: MetadataScanner,
  reflector: Reflector,
  wrappers: { controllers: readonly DiscoveredWrapper[]; providers: readonly DiscoveredWrapper[] },
  acceptedMethods: readonly string[],
): RouteScan {
  const scan: RouteScan = { routes: [], problems: [] };
  const seen = new Set<Function>();
  for (const [wrapper, isController] of [
    ...wrappers.controllers.map((wrapper) => [wrapper, true] as const),
    ...wrappers.providers.map((wrapper) => [wrapper, false] as const),
  ]) {
    const type = classOf(wrapper);
    if (!type || seen.has(type)) continue;
    seen.add(type);
    scanClass(scanner, reflector, type, isController, acceptedMethods, scan);
  }
  return scan;
}

function scanClass(
  scanner: MetadataScanner,
  reflector: Reflector,
  type: Function,
  isController: boolean,
  acceptedMethods: readonly string[],
  scan: RouteScan,
): void {
  for (const [kind, key] of Object.entries(ROUTE_METADATA_KEYS)) {
    if (reflector.get(key, type) !== undefined) {
      scan.problems.push(
        `${type.name}: ${decoratorName(kind as keyof typeof ROUTE_METADATA_KEYS)} is on the class; put it on a route method.`,
      );
    }
  }
  const classGuarded = hasSignatureGuard(reflector.get(GUARDS_METADATA, type));
  const prototype = type.prototype as Record<string, unknown>;
  for (const methodName of scanner.getAllMethodNames(prototype)) {
    const method = prototype[methodName];
    if (typeof method !== 'function') continue;
    const name = `${type.name}.${methodName}`;
    const found = readRouteMetadata(reflector, method);
    const guarded = classGuarded || hasSignatureGuard(reflector.get(GUARDS_METADATA, method));
    if (found.length === 0 && !guarded) {
      if (usesReceivedMessage(type, methodName)) {
        scan.problems.push(
          `${name} has a @ReceivedMessage() parameter but no SignatureGuard: mark it with @OnMessage(definition), @OnCallback() or @OnFailureCallback().`,
        );
      }
      continue;
    }
    if (found.length === 0) {
      // Only a bare guard: a Mailroom route only if it is a route at all (a class-level guard
      // also covers helper methods that are not routes).
      if (isController && reflector.get(PATH_METADATA, method) !== undefined) scan.routes.push({ name });
      continue;
    }
    const decorators = found.map((metadata) => decoratorName(metadata.kind)).join(' and ');
    if (!isController) {
      scan.problems.push(`${name} is marked ${decorators}, but ${type.name} is not a controller: only controller routes receive requests.`);
      continue;
    }
    if (found.length > 1) {
      scan.problems.push(`${name} is marked ${decorators}; a route receives one kind of message, so keep one.`);
      continue;
    }
    const checked = checkRoute(found[0]!);
    if ('problem' in checked) {
      scan.problems.push(`${name}: ${checked.problem}.`);
      continue;
    }
    const httpMethod = reflector.get<RequestMethod | undefined>(METHOD_METADATA, method);
    if (reflector.get(PATH_METADATA, method) === undefined || httpMethod === undefined) {
      scan.problems.push(`${name} is marked ${decorators} but is not a route: add @Post(...) (the service delivers with POST).`);
      continue;
    }
    const verb = RequestMethod[httpMethod];
    if (httpMethod !== RequestMethod.ALL && verb !== undefined && !acceptedMethods.includes(verb)) {
      scan.problems.push(
        `${name} is a ${verb} route, but the receiver accepts only ${acceptedMethods.join(', ')}, so every delivery would get 405: use @Post(...), or add "${verb}" to the module's methods option.`,
      );
      continue;
    }
    if (checked.kind === 'message') {
      const problem = pathProblem(name, reflector.get(PATH_METADATA, type), reflector.get(PATH_METADATA, method), checked.definition);
      if (problem) {
        scan.problems.push(problem);
        continue;
      }
    }
    scan.routes.push({ name });
  }
}

/**
 * `client.send(definition)` posts to the app URL + `definition.path`, so a route at any other path
 * would answer every delivery 404 until the DLQ. Nest's global prefix is not in this metadata: like
 * the rest of the public base, it belongs in MAILROOM_APP_URL.
 */
function pathProblem(name: string, controllerPath: unknown, methodPath: unknown, definition: DestinationDefinition): string | undefined {
  const served = [];
  for (const prefix of pathList(controllerPath)) for (const path of pathList(methodPath)) served.push(joinPaths(prefix, path));
  if (served.includes(definition.path)) return undefined;
  return (
    `${name} serves ${served.join(' and ')}, but destination "${definition.name}" is delivered to ${definition.path} ` +
    `(client.send posts to MAILROOM_APP_URL + the definition's path), so every delivery would get a 404. ` +
    `Serve it there (e.g. @Post('${definition.path.replace(/^\//, '')}') under @Controller()), or give the definition the route's path: ` +
    `defineDestination({ name: '${definition.name}', path: '${served[0]}', schema }). Nest's global prefix is not part of either: put it in MAILROOM_APP_URL.`
  );
}

function pathList(value: unknown): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [''] : value.map(String);
  return [typeof value === 'string' ? value : ''];
}

function joinPaths(prefix: string, path: string): string {
  return `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}

function classOf(wrapper: DiscoveredWrapper): Function | undefined {
  const instance = wrapper.instance;
  const type = instance !== null && typeof instance === 'object' ? instance.constructor : wrapper.metatype;
  if (typeof type !== 'function' || type === Object || type === Function || !type.prototype) return undefined;
  return type;
}

function hasSignatureGuard(guards: unknown): boolean {
  return Array.isArray(guards) && guards.some((guard) => guard === SignatureGuard || guard instanceof SignatureGuard);
}

/**
 * The app cannot receive or send correctly as configured; thrown while the app starts
 * (`app.init()` / `app.listen()`), never at the first request. Lists every problem found.
 */
export class MailroomSetupError extends MailroomError {
  override name = 'MailroomSetupError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const list = problems.map((problem) => `  - ${problem}`).join('\n');
    super('NEST_SETUP', `MailroomModule cannot start:\n${list}`);
    this.problems = problems;
  }
}

/**
 * The start-up checks. Runs in `onModuleInit`, which Nest calls from `app.init()` after it has
 * registered its body parsers and before the server listens, so a misconfigured app fails to start
 * instead of answering its first delivery with an error.
 */
@Injectable()
export class MailroomExplorer implements OnModuleInit {
  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(MAILROOM_MODULE_OPTIONS) private readonly options: MailroomModuleOptions,
    @Inject(MAILROOM_RECEIVER) private readonly receiver: Receiver,
    @Inject(MAILROOM_MESSAGING_CLIENT) private readonly messaging: MessagingClient,
    @Inject(MAILROOM_MANAGEMENT_CLIENT) private readonly management: ManagementClient,
  ) {}

  async onModuleInit(): Promise<void> {
    const controllers = this.discovery.getControllers() as DiscoveredWrapper[];
    const providers = this.discovery.getProviders() as DiscoveredWrapper[];
    const { routes, problems } = scanRoutes(this.scanner, this.reflector, { controllers, providers }, this.acceptedMethods());
    // A malformed route still shows the intent to receive. Only an app that receives needs keys and
    // raw bytes: a send-only app must boot without them.
    if (routes.length > 0 || problems.length > 0) {
      problems.push(...(await this.signingKeyProblems()), ...this.platformProblems());
    }
    problems.push(...this.clientProblems([...controllers, ...providers]));
    if (problems.length > 0) throw new MailroomSetupError(problems);
  }

  private acceptedMethods(): readonly string[] {
    return this.options.methods ?? ['POST'];
  }

  /** Asks the receiver itself, so "configured" means exactly what the pipeline will do per request. */
  private async signingKeyProblems(): Promise<string[]> {
    try {
      pipelineOf(this.receiver).assertConfigured();
    } catch (error) {
      if (error instanceof ConfigError) return [error.message];
      throw error;
    }
    return [];
  }

  private platformProblems(): string[] {
    // `HttpAdapterHost.httpAdapter` is unset in an application context without HTTP: nothing to check.
    const adapter = this.adapterHost.httpAdapter as { getType?: () => string } | undefined;
    if (!adapter) return [];
    const type = adapter.getType?.();
    if (type !== 'express') {
      return [
        `@mailroom/nestjs supports the Express platform (@nestjs/platform-express); this app runs on "${type ?? 'an unknown platform'}", whose requests it cannot read the raw body from.`,
      ];
    }
    // Whether the body parsers keep `req.rawBody` is not visible through Nest's or Express's public API
    // (Nest keeps `rawBody` in the application's private options), so the first delivery reports it.
    return [];
  }

  private clientProblems(wrappers: DiscoveredWrapper[]): string[] {
    const problems: string[] = [];
    const clients = [
      { token: MAILROOM_MESSAGING_CLIENT, label: 'the messaging client', client: this.messaging, settings: '{ baseUrl, token }' },
      {
        token: MAILROOM_MANAGEMENT_CLIENT,
        label: 'the management client',
        client: this.management,
        settings: '{ management: { baseUrl, user, password } }',
      },
    ];
    for (const { token, label, client, settings } of clients) {
      const reason = unconfiguredReason(client);
      if (!reason) continue;
      const dependents = dependentsOf(this.reflector, wrappers, token, [MailroomExplorer]);
      if (dependents.length === 0) continue;
      problems.push(
        `${dependents.join(', ')} inject(s) ${label} (${token}), which is not configured: ${reason.message} ` +
          `(In MailroomModule.forRoot: ${settings}.)`,
      );
    }
    return problems;
  }
}
