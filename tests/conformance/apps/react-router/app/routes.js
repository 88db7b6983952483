import { route } from '@react-router/dev/routes';

/** @type {import('@react-router/dev/routes').RouteConfig} */
export default [route('api/*', 'routes/api.js')];
