import { ConfigError, type ManagementClient, type MessagingClient, type Receiver } from '@mailroom/core';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost, MetadataScanner, Reflector } from '@nestjs/core';
import { dependentsOf } from './client-dependents';
import { scanRoutes, type DiscoveredWrapper } from './discover-routes';
import { MODULE_OPTIONS_TOKEN } from './mailroom-module-definition';
import type { MailroomModuleOptions } from './mailroom-module-options';
import { MailroomSetupError } from './mailroom-setup-error';
import { NEST_RAW_BODY_HINT } from './raw-body-hint';
import { probeRawBody } from './raw-body-probe';
import { MAILROOM_MANAGEMENT_CLIENT, MAILROOM_MESSAGING_CLIENT, MAILROOM_RECEIVER } from './tokens';
import { unconfiguredReason } from './unconfigured-client';

/**
 * The start-up checks. Runs in `onModuleInit`, which Nest calls from `app.init()` after it has
 * registered its body parsers and before the server listens, so a misconfigured app fails to start
 * instead of answering its first delivery with an error.
 */
@Injectable()
export class MailroomExplorer implements OnModuleInit {
  private readonly logger = new Logger('Mailroom');

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: MailroomModuleOptions,
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
      problems.push(...(await this.signingKeyProblems()), ...(await this.rawBodyProblems()));
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
      this.receiver.assertConfigured();
    } catch (error) {
      if (error instanceof ConfigError) return [error.message];
      throw error;
    }
    return [];
  }

  private async rawBodyProblems(): Promise<string[]> {
    // `HttpAdapterHost.httpAdapter` is unset in an application context without HTTP: nothing to check.
    const adapter = this.adapterHost.httpAdapter as { getType?: () => string; getInstance?: () => unknown } | undefined;
    if (!adapter) return [];
    const type = adapter.getType?.();
    if (type !== 'express') {
      return [
        `@mailroom/nestjs supports the Express platform (@nestjs/platform-express); this app runs on "${type ?? 'an unknown platform'}", whose requests it cannot read the raw body from.`,
      ];
    }
    const probe = await probeRawBody(adapter.getInstance?.());
    for (const parser of probe.inconclusive) {
      this.logger.warn(`Could not check whether ${parser} keeps the raw body; if signatures fail with a 500, ${NEST_RAW_BODY_HINT}`);
    }
    if (probe.lost.length === 0) return [];
    return [
      `The app's body parser consumes ${probe.lost.join(', ')} requests without keeping the raw bytes, so no Mailroom ` +
        `signature could be verified (every delivery would get a 500). Fix: ${NEST_RAW_BODY_HINT}`,
    ];
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
