import fc from 'fast-check';

// A red `npm test` must replay: every property that does not pick its own seed runs with a fixed
// one (fast-check's default is a fresh seed per run). `FC_SEED` pins another; the long mode
// (`FC_NUM_RUNS` set, see test/reliability/fc-settings.ts) explores fresh seeds.
const pinned = Number(process.env.FC_SEED ?? Number.NaN);
if (Number.isSafeInteger(pinned)) fc.configureGlobal({ seed: pinned });
else if (process.env.FC_NUM_RUNS === undefined) fc.configureGlobal({ seed: 0x5eed_2026 });
