// Preloaded into the service processes (NODE_OPTIONS=--require) when BENCH_CPU_PROF is set:
// Node 20 refuses --cpu-prof in NODE_OPTIONS, so the profiler is driven through the inspector.
// Writes <BENCH_CPU_PROF>/<pid>.cpuprofile when the process exits (open it in Chrome DevTools).
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.start');
// An in-thread inspector session answers synchronously, so this works inside 'exit'.
process.on('exit', () => {
  session.post('Profiler.stop', (err, result) => {
    if (!err) writeFileSync(join(process.env.BENCH_CPU_PROF, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
