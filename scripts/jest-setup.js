// Property tests run with a fixed seed so that a run is reproducible (a CI failure can be
// replayed exactly); set FC_SEED to explore other inputs, FC_RUNS to try more of them.
const fc = require('fast-check');

fc.configureGlobal({
  seed: Number(process.env.FC_SEED ?? 20261121),
  ...(process.env.FC_RUNS ? { numRuns: Number(process.env.FC_RUNS) } : {}),
});
