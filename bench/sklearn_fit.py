#!/usr/bin/python3
"""scikit-learn fit time on N rows x P inputs (for bench/models.mjs): LinearRegression and
LinearDiscriminantAnalysis, best of 3. Prints JSON. Usage: /usr/bin/python3 sklearn_fit.py N P"""
import json, sys, time
import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LinearRegression

n, p = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(42)
X = rng.normal(size=(n, p))
y = X @ rng.normal(size=p) + rng.normal(size=n)
b = (y > np.median(y)).astype(int)

def best(fit):
    times = []
    for _ in range(3):
        t0 = time.perf_counter(); fit(); times.append(time.perf_counter() - t0)
    return min(times) * 1000

print(json.dumps({'rows': n, 'inputs': p, 'mlr_ms': best(lambda: LinearRegression().fit(X, y)), 'lda_ms': best(lambda: LinearDiscriminantAnalysis().fit(X, b))}))
