import { answer } from '../../lib/conformance';

// Every method reaches the endpoint, so a wrong one gets the pipeline's 405 with Allow.
/** @param {import('@solidjs/start/server').APIEvent} event */
const handle = ({ request }) => answer(request);
export const GET = handle;
export const POST = handle;
export const PUT = handle;
export const PATCH = handle;
export const DELETE = handle;
export const HEAD = handle;
export const OPTIONS = handle;
