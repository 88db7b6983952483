import { received } from '../mailroom.server';

export const loader = () => Response.json(received);
