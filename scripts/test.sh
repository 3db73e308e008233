#!/usr/bin/env bash
# `npm test`: build every workspace (tsc type-checks), type-check the tests, then one jest run over
# every tier (jest.config.js projects). `npm run test:integration` / `test:system` pass
# `--selectProjects <tier>` through to jest; `npm run test:unit` needs neither build nor this script.
set -uo pipefail
cd "$(dirname "$0")/.."
TURBO_TELEMETRY_DISABLED=1 npx turbo run build --output-logs=errors-only || exit 1
# The tests' own types (jest runs them through swc, which does not check them).
npx tsc -p tsconfig.test.json || exit 1
summary=$(mktemp)
SML_TEST_SUMMARY_FILE=$summary npx jest "$@"
rc=$?
echo
cat "$summary" 2>/dev/null
rm -f "$summary"
exit $rc
