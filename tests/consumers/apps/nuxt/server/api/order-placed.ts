export default defineEventHandler(
  mailroom.destination(orderPlaced, (message, event) => {
    received.push({ ...message.body, path: getRequestURL(event as never).pathname });
  }),
);
