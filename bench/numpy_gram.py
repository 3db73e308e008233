"""numpy's X.T @ X (OpenBLAS through Debian's python3-numpy and libopenblas0) on blocks of `rows` x `p`,
the same block shapes the summary update folds (bench/summary.mjs). Prints JSON: ns per
attribute pair (i <= j) per row, the best of `reps` timings of `repeat` products each.
Usage: /usr/bin/python3 bench/numpy_gram.py '[[p, rows], ...]'"""
import json
import sys
import time

import numpy as np

shapes = json.loads(sys.argv[1])
rng = np.random.default_rng(7)
out = []
for p, rows in shapes:
    x = rng.uniform(-100, 100, size=(rows, p))
    x.T @ x  # warm-up
    repeat = max(1, int(2e8 // (rows * p * p)))
    best = float("inf")
    for _ in range(7):
        t0 = time.perf_counter_ns()
        for _ in range(repeat):
            x.T @ x
        best = min(best, (time.perf_counter_ns() - t0) / repeat)
    out.append({"p": p, "rows": rows, "ns_per_pair_row": best / (rows * p * (p + 1) / 2)})

def blas_library():
    """The BLAS shared object this process loaded (Debian picks it by update-alternatives:
    reference BLAS is ~10x slower than OpenBLAS, so the comparison must say which)."""
    with open("/proc/self/maps") as maps:
        names = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(n.rsplit("/", 2)[-2] + "/" + n.rsplit("/", 1)[-1] for n in names)) or "unknown"


print(json.dumps({"numpy": np.__version__, "blas": blas_library(), "shapes": out}))
