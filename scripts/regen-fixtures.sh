#!/usr/bin/env bash
# Regenerates every reference fixture of the numerical tests from its committed generator
# (SciPy, scikit-learn, statsmodels, numpy, R survival), then shows what changed. The tests
# never run these: they read the committed JSON. Prerequisites (Debian packages, not PyPI):
#   apt-get install -y python3-numpy python3-scipy python3-sklearn python3-statsmodels \
#                      python3-mpmath python3-pandas r-cran-survival r-cran-jsonlite
# Debian's python is /usr/bin/python3 (the pyenv python3 first on PATH lacks these libraries).
# Usage: bash scripts/regen-fixtures.sh [--check]
#   without --check: the fixtures are rewritten (commit them with the change that needed it);
#   --check: each regenerated fixture is compared number by number with the committed one
#   (scripts/compare-fixtures.mjs, relative 1e-9: another BLAS build or CPU changes the last
#   bits, scikit-learn's iterative solvers ~1e-11), then the committed files are restored.
#   matrix_iris.json has repeated eigenvalues (collinear one-hot columns) whose eigenvectors
#   are an arbitrary basis of their eigenspace; matrix.numpy.test.ts compares those as
#   subspaces, so --check reports differences there and does not fail on them.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3

# Generators that write their own files next to themselves.
in_place=(
  packages/stats/test/fixtures/gen_summary.py
  packages/stats/test/fixtures/gen_sequence.py
  packages/stats/test/encoder/fixtures/gen_encoder.py
  packages/stats/test/models/sequence/fixtures/gen_sequence_models.py
  packages/stats/test/models/evt/fixtures/gen_spot.py
  packages/stats/test/matrix/fixtures/gen_matrix.py
  packages/stats/test/explore/fixtures/gen_explore.py
)
# Generators that print their fixture on stdout: generator → output file (same folder).
declare -A to_stdout=(
  [packages/bus/test/fixtures/gen_digest.py]=digest.json
  [packages/federation/test/fixtures/gen_contract.py]=contract.json
  [packages/stats/test/models/classifiers/fixtures/gen_classifiers.py]=classifiers.json
  [packages/stats/test/models/anomaly/fixtures/gen_anomaly.py]=anomaly.json
  [packages/stats/test/explore/fixtures/gen_drift.py]=drift.json
  [packages/stats/test/models/kmeans/fixtures/gen_kmeans.py]=kmeans.json
  [packages/stats/test/models/powerreg/fixtures/gen_powerreg.py]=powerreg.json
  [packages/stats/test/models/forest/fixtures/gen_forest.py]=forest.json
  [packages/stats/test/models/fixtures/gen_models.py]=models.json
  [packages/stats/test/models/fixtures/gen_selection.py]=selection.json
  [packages/stats/test/models/fixtures/gen_reduce.py]=reduce.json
  [packages/stats/test/models/fixtures/gen_assessment.py]=assessment.json
  [packages/stats/test/models/linear-family/fixtures/gen_linear_family.py]=linear_family.json
  [services/projects/test/fixtures/gen_iris_moments.py]=iris_moments.json
  [packages/cli/test/fixtures/gen_metrics.py]=metrics.json
)
r_scripts=(
  packages/stats/test/survival/fixtures/gen_survival.R
  packages/stats/test/survival/fixtures/gen_km_model.R
)

for g in "${in_place[@]}"; do
  echo "• $g" >&2
  (cd "$(dirname "$g")" && "$PY" "$(basename "$g")")
done
for g in "${!to_stdout[@]}"; do
  out="$(dirname "$g")/${to_stdout[$g]}"
  echo "• $g > $out" >&2
  (cd "$(dirname "$g")" && "$PY" "$(basename "$g")") > "$out.tmp" && mv "$out.tmp" "$out"
done
for g in "${r_scripts[@]}"; do
  echo "• $g" >&2
  (cd "$(dirname "$g")" && Rscript "$(basename "$g")")
done

echo "$(( ${#in_place[@]} + ${#to_stdout[@]} + ${#r_scripts[@]} )) generators run" >&2
git status --short -- '*/fixtures/*'
if [[ ${1:-} == --check ]]; then
  failed=0
  for f in $(git diff --name-only -- '*/fixtures/*'); do
    committed=$(mktemp)
    git show "HEAD:$f" > "$committed"
    if ! node scripts/compare-fixtures.mjs "$committed" "$f" 1e-9; then
      [[ $f == */matrix_iris.json ]] && echo "  (arbitrary eigenvector basis of repeated eigenvalues: not a failure)" || failed=1
    fi
    rm -f "$committed"
    git checkout -- "$f"
  done
  exit $failed
fi
