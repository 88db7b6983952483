import type { APIRoute } from 'astro';
import { received } from '../../lib/mailroom';

export const prerender = false;
export const GET: APIRoute = () => Response.json(received);
