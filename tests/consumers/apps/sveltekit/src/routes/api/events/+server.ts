import { json } from '@sveltejs/kit';
import { received } from '$lib/server/mailroom';

export const GET = () => json(received);
