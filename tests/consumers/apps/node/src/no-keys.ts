// Created without any signing key: the app must say so at once, not only at the first delivery.
import { createMailroom } from '@mailroom/adapters/express';

createMailroom();
console.log('created');
