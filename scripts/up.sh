#!/usr/bin/env bash
# `npm run up`: install what is missing, build, and run nats-server + every service + the
# gateway in the foreground until Ctrl-C. NATS_URL set → use that server instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prereqs.sh
TURBO_TELEMETRY_DISABLED=1 npx turbo run build --output-logs=errors-only
exec node scripts/run.mjs
