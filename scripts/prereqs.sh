#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for SML: npm dependencies, nats-server, and for
# the test suite (`--test`) kcat (Kafka mock broker), PostgreSQL, openssl (an interop
# check of DSInfo encryption), for Debian's python3 what the Python client's tests use
# (clients/python/test/python.e2e.test.ts): pytest, pandas, cryptography (DSInfo encryption),
# pip + setuptools (the install test), nbconvert + ipykernel (the executed tutorial notebook),
# and chromium (the /docs page rendered in a browser, test/docs/docs-page.e2e.test.ts).
# Idempotent and quiet.
set -euo pipefail
cd "$(dirname "$0")/.."

want=(nats-server)
[[ ${1:-} == --test ]] && want+=(kcat postgresql openssl python3-pytest python3-pandas python3-cryptography
  python3-pip python3-setuptools jupyter-nbconvert python3-ipykernel chromium)
missing=()
for pkg in "${want[@]}"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
if ((${#missing[@]})); then
  sudo=""; [[ $(id -u) == 0 ]] || sudo="sudo"
  echo "installing ${missing[*]} from Debian packages" >&2
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Install when node_modules is missing or older than the lockfile. `npm install` (pinned by
# the lockfile) rather than `npm ci`: npm 11 writes lockfiles without the other platforms'
# optional binaries (swc, turbo), and `npm ci` then refuses them as out of sync.
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm install --no-audit --no-fund --loglevel=error
fi
