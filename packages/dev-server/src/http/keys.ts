import { randomBytes } from 'node:crypto';
import { keysInForce } from '../credentials';
import type { Service } from '../service';
import { json, type Route } from './router';

/**
 * `GET /v2/keys` and `POST /v2/keys/rotate`: rotation makes the next key current and a new next key,
 * and every delivery from then on is signed with the new current key; a receiver configured with
 * both old keys keeps verifying (the old next key is the new current one).
 */
export function signingKeyRoutes(service: Service): Route[] {
  return [
    // The keys sign deliveries every receiver accepts: reading them is as good as writing.
    {
      method: 'GET',
      path: '/v2/keys',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: () => json(keysInForce(service.store.state, service.credentials)),
    },
    {
      method: 'POST',
      path: '/v2/keys/rotate',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: async () => {
        const rotated = {
          current: keysInForce(service.store.state, service.credentials).next,
          next: `sig_${randomBytes(18).toString('base64url')}`,
        };
        await service.store.commit({ type: 'keys.rotated', ...rotated });
        return json(rotated);
      },
    },
  ];
}
