import { endpointFor } from '../../../../shared/endpoints.server';

// Rendered on demand: without this line `astro build` prerenders the route, and every POST is a 404.
export const prerender = false;

// Every method reaches the endpoint (`ALL`), so a wrong one gets the pipeline's 405 with Allow.
/** @type {import('astro').APIRoute} */
export const ALL = ({ request }) => endpointFor(request)?.fetch(request) ?? new Response('Not found', { status: 404 });
