import { handlerFor } from '$lib/server/conformance';

// Every method reaches the handler (`fallback`), so a wrong one gets the pipeline's 405 with Allow.
/** @type {import('./$types').RequestHandler} */
export const fallback = (event) => handlerFor(event)?.(event) ?? new Response('Not found', { status: 404 });
