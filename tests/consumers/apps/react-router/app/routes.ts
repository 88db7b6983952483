import { type RouteConfig, route } from '@react-router/dev/routes';

export default [
  route('api/order-placed', 'routes/api.order-placed.ts'),
  route('api/events', 'routes/api.events.ts'),
  route('api/send', 'routes/api.send.ts'),
] satisfies RouteConfig;
