// Records the plain closing line CI reads ("jest: N passed, N failed, N skipped");
// scripts/test.sh prints it after jest's own summary so it is the last line of the run.
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, r) {
    const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
    const line = `jest: ${r.numPassedTests} passed, ${failed} failed, ${r.numPendingTests + r.numTodoTests} skipped`;
    if (process.env.SML_TEST_SUMMARY_FILE) fs.writeFileSync(process.env.SML_TEST_SUMMARY_FILE, line + '\n');
  }
}
module.exports = SummaryReporter;
