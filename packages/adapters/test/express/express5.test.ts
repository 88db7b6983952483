import express from 'express';
import { describeExpressAdapter } from './express-cases';

describeExpressAdapter('express 5', express);
