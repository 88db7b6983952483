import { createServer, type AddressInfo } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now, for a process the test starts and cannot hand port 0
 * (a child app, a runtime's binary, a dev server named in an environment variable). The kernel
 * does not hand out the same ephemeral port again at once, so the gap until the child binds is safe.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
