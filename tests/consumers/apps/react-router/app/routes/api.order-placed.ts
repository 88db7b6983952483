import type { ActionFunctionArgs, LoaderFunctionArgs } from 'react-router';
import { orderPlaced } from '../destinations';
import { received, receiver } from '../mailroom.server';

const orders = receiver.destination(orderPlaced, (message, args) => {
  received.push({ ...message.body, path: new URL((args as ActionFunctionArgs).request.url).pathname });
});

export const action = (args: ActionFunctionArgs) => orders.fetch(args.request, args);
export const loader = (args: LoaderFunctionArgs) => orders.fetch(args.request, args);
