import { createMemoryStore } from '@mailroom/core/idempotency';
import { describe, expect, it } from 'vitest';
import { callbackPayload, ORDER } from '../fixtures';
import { expectAccepted } from './support/expectations';
import { useTarget, type Harness } from './support/harness';
import type { ConformanceTarget } from '../target';

/** The receiver's `idempotency` default, as each adapter's app passes it on: one handler call per message. */
export function idempotencyCases(_main: Harness, target: ConformanceTarget): void {
  describe('idempotency (a memory store as the default)', () => {
    const h = useTarget(target, { name: 'idempotency', options: { idempotency: createMemoryStore() } });

    it('runs the destination once per message; a later delivery is answered 200 with Mailroom-Already-Handled', async () => {
      const first = await h.deliver({ body: ORDER, messageId: 'msg_idem_1' });
      expectAccepted(first);
      expect(first.headers['mailroom-already-handled']).toBeUndefined();
      const again = await h.deliver({ body: ORDER, messageId: 'msg_idem_1' });
      expectAccepted(again);
      expect(again.headers['mailroom-already-handled']).toBe('true');
      expect(h.destination).toHaveBeenCalledTimes(1);
    });

    it('runs it again on the retry of a delivery whose handler failed', async () => {
      h.destination.mockImplementationOnce(() => {
        throw new Error('the database is down');
      });
      expect((await h.deliver({ body: ORDER, messageId: 'msg_idem_2' })).status).toBe(500);
      expectAccepted(await h.deliver({ body: ORDER, messageId: 'msg_idem_2' }));
      expect(h.destination).toHaveBeenCalledTimes(2);
    });

    it('refuses a token replayed under another message id (401, reason replayed), and still runs the real message', async () => {
      expectAccepted(await h.deliver({ body: ORDER, messageId: 'msg_idem_own', tokenId: 'jwt_replayed' }));
      const replay = await h.deliver({ body: ORDER, messageId: 'msg_idem_victim', tokenId: 'jwt_replayed' });
      expect(replay.status).toBe(401);
      expect(h.signatureReason()).toBe('replayed');
      const victim = await h.deliver({ body: ORDER, messageId: 'msg_idem_victim' });
      expectAccepted(victim);
      expect(victim.headers['mailroom-already-handled']).toBeUndefined();
      expect(h.destination).toHaveBeenCalledTimes(2);
    });

    it('handles a callback delivered twice once', async () => {
      for (let round = 0; round < 2; round++)
        expectAccepted(await h.deliver({ to: 'callback', body: callbackPayload(), messageId: 'msg_idem_cb' }));
      expect(h.callback).toHaveBeenCalledTimes(1);
    });
  });
}
