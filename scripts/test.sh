#!/usr/bin/env bash
# `npm test`: build every workspace (tsc type-checks), type-check the tests, then one jest run over
# every tier (jest.config.js projects). `--tier=unit|integration|system` first runs one tier
# (`npm run test:unit` etc.); the unit tier needs neither the build nor the type check. Every
# tier runs on two workers (jest's default on 2 cores is one; SML_TEST_WORKERS overrides it):
# files marked `@sml-run-alone` still run alone (scripts/jest-alone.js), and system files share
# one system per worker and profile (CONTRIBUTING.md "Test tiers"). Further arguments go to
# jest, before `--selectProjects`, which would take a path after it for a project's name.
set -uo pipefail
cd "$(dirname "$0")/.."
tier=
case "${1:-}" in --tier=*) tier=${1#--tier=}; shift ;; esac
select=(--maxWorkers="${SML_TEST_WORKERS:-2}")
[ -n "$tier" ] && select+=(--selectProjects "$tier")
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
