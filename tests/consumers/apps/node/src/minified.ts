// Bundled with esbuild --minify: class names are mangled, error names must not be.
import { createMessagingClient, createReceiver, MailroomError } from '@mailroom/core';

const names: string[] = [];
try {
  createMessagingClient({ baseUrl: 'ftp://not-http.example', token: 't' }); // a ConfigError
} catch (error) {
  names.push(`${(error as Error).name}:${error instanceof MailroomError}`);
}
const receiver = createReceiver({ currentSigningKey: 'sig_minified', onError: (error) => void names.push((error as Error).name) });
await receiver.message(() => undefined).handle({ method: 'POST', url: '/x', headers: {}, rawBody: new Uint8Array(0) });
console.log(JSON.stringify(names));
