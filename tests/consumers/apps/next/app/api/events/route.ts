import { received } from '../../../lib/destinations';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json(received);
}
