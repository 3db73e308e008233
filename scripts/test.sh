#!/usr/bin/env bash
# `npm test`: build every workspace (tsc type-checks), type-check the tests, then one jest run over
# every tier (jest.config.js projects). `--tier=unit|integration|system` first runs one tier
# (`npm run test:unit` etc.); the unit tier needs neither the build nor the type check, and runs
# on two workers (jest's default on 2 cores is one). Further arguments go to jest, before
# `--selectProjects`, which would take a path after it for a project's name.
set -uo pipefail
cd "$(dirname "$0")/.."
tier=
case "${1:-}" in --tier=*) tier=${1#--tier=}; shift ;; esac
select=()
[ -n "$tier" ] && select=(--selectProjects "$tier")
[ "$tier" = unit ] && select=(--maxWorkers=2 "${select[@]}")
if [ "$tier" != unit ]; then
  TURBO_TELEMETRY_DISABLED=1 npx turbo run build --output-logs=errors-only || exit 1
  # The tests' own types (jest runs them through swc, which does not check them).
  npx tsc -p tsconfig.test.json || exit 1
fi
summary=$(mktemp)
SML_TEST_SUMMARY_FILE=$summary npx jest "$@" "${select[@]}"
rc=$?
echo
cat "$summary" 2>/dev/null
rm -f "$summary"
exit $rc
