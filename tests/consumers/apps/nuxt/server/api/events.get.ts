export default defineEventHandler(() => received);
