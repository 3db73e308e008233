#!/usr/bin/env bash
# `npm run up`: install what is missing, build, and run nats-server + every service + the
# gateway in the foreground until Ctrl-C. NATS_URL set → use that server instead. Each phase
# prints a `==>` line (a cold machine spends minutes installing and building); once the
# gateway is ready, scripts/run.mjs prints the `export` lines the README's next commands need.
# SML_SKIP_BUILD=1 reuses the tree as built (no install, no build): a test of the first
# session runs `npm run up` so, beside a test run that built the tree already.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${SML_SKIP_BUILD:-} == 1 ]]; then
  echo "==> install and build skipped (SML_SKIP_BUILD=1): running the tree as built"
else
  echo "==> checking prerequisites: nats-server (Debian package), npm dependencies"
  bash scripts/prereqs.sh
  # new-only: a line per workspace (a cache hit says so), the compiler's output when it builds.
  echo "==> building every workspace (turbo: a line per workspace; cold, a few minutes on 2 cores)"
  TURBO_TELEMETRY_DISABLED=1 npx turbo run build --output-logs=new-only
fi
exec node scripts/run.mjs
