/**
 * How to fix a Nest app whose body parser ate the bytes the signature covers. Ends the
 * `RawBodyUnavailableError` message at request time and the start-up error, so both say the same.
 */
export const NEST_RAW_BODY_HINT =
  'create the app with rawBody: true, e.g. NestFactory.create(AppModule, { rawBody: true }) ' +
  '(in tests: moduleRef.createNestApplication({ rawBody: true })). Parsers added with app.useBodyParser(...) keep ' +
  'the raw body too when rawBody is true; a parser added with app.use(express.json()) does not: pass it ' +
  '{ verify: captureRawBody } from @mailroom/core, or remove it.';
