import { received } from '../../lib/mailroom';

export const GET = () => Response.json(received);
