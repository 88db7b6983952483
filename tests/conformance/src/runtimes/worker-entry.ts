import { remoteApp } from './remote-app';
import type { RemoteConfig } from './wire';

// workerd: the remote app as a Worker, its settings in a text binding.

let app: ReturnType<typeof remoteApp> | undefined;

export default {
  fetch(request: Request, env: { MAILROOM_CONFORMANCE: string }, context: unknown): Promise<Response> {
    app ??= remoteApp(JSON.parse(env.MAILROOM_CONFORMANCE) as RemoteConfig);
    return app.fetch(request, env, context);
  },
};
