"""scikit-learn-style estimators over an SML project, duck-typed (no scikit-learn import).

`fit` learns (X, y) into the project and builds the model; `partial_fit` learns more rows and
rebuilds (SML's summary is additive, so this is exact, not an approximation); `forget(X, y)`
removes rows the same way. scikit-learn's tools that only call fit/predict/score/get_params work
with them; cloning works because get_params/set_params follow its convention.
"""
from typing import Any, Dict, List, Optional, Sequence

from .client import SmlClient
from .errors import InvalidRequestError


def _rows(X: Any) -> List[List[Any]]:
    if hasattr(X, "itertuples"):
        return [list(r) for r in X.itertuples(index=False, name=None)]
    if hasattr(X, "tolist"):
        X = X.tolist()
    return [list(r) if isinstance(r, (list, tuple)) else [r] for r in X]


def _names(X: Any, width: int) -> List[str]:
    cols = getattr(X, "columns", None)
    return [str(c) for c in cols] if cols is not None else [f"x{i}" for i in range(width)]


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


class _SmlEstimator:
    _target_type = "C"
    _default_algo = "mlr"

    def __init__(self, client: SmlClient, project: str, algo: Optional[str] = None, model: str = "model",
                 target: str = "y", extra_parameters: Optional[Dict[str, str]] = None):
        self.client = client
        self.project = project
        self.algo = algo or self._default_algo
        self.model = model
        self.target = target
        self.extra_parameters = extra_parameters

    # scikit-learn's parameter protocol (clone, GridSearchCV).
    def get_params(self, deep: bool = True) -> Dict[str, Any]:
        return {k: getattr(self, k) for k in ("client", "project", "algo", "model", "target", "extra_parameters")}

    def set_params(self, **params: Any) -> "_SmlEstimator":
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def _frame(self, X: Any, y: Optional[Sequence[Any]] = None) -> Dict[str, Any]:
        rows = _rows(X)
        names = _names(X, len(rows[0]) if rows else 0)
        types = ["C"] * len(names)
        if y is not None:
            ys = list(y.tolist() if hasattr(y, "tolist") else y)
            rows = [r + [t] for r, t in zip(rows, ys)]
            names, types = names + [self.target], types + [self._target_type]
        return {"attributeNames": names, "attributeTypes": types, "data": [[_text(v) for v in r] for r in rows]}

    def _ensure_project(self) -> None:
        try:
            self.client.operations.createProject(query={"pid": self.project})
        except InvalidRequestError as e:
            if e.status != 409:  # 409: the project exists; learning adds to it.
                raise

    def _build(self) -> None:
        ctx: Dict[str, Any] = {"inputAttributeNames": self.feature_names_in_, "targetAttributeNames": [self.target]}
        if self.extra_parameters:
            ctx["extraParameters"] = self.extra_parameters
        job = self.client.operations.buildModel(self.project, query={"modelid": self.model, "algo": self.algo}, json_body=ctx)
        self.client.wait(job, progress=False)

    def fit(self, X: Any, y: Sequence[Any]) -> "_SmlEstimator":
        """Learns (X, y) into the project (created when missing) and builds the model."""
        self._ensure_project()
        return self.partial_fit(X, y)

    def partial_fit(self, X: Any, y: Sequence[Any]) -> "_SmlEstimator":
        """Learns more rows and rebuilds the model from the whole summary."""
        frame = self._frame(X, y)
        self.feature_names_in_ = frame["attributeNames"][:-1]
        self.client.learn(self.project, frame)
        self._build()
        return self

    def forget(self, X: Any, y: Sequence[Any]) -> "_SmlEstimator":
        """Removes rows learned before (the exact inverse of learn) and rebuilds the model."""
        frame = self._frame(X, y)
        self.client.forget(self.project, frame)
        self._build()
        return self

    def _predictions(self, X: Any) -> List[Dict[str, str]]:
        res = self.client.operations.predict(self.project, self.model, json_body=self._frame(X))
        return res.values.get("KSVSMap", {}).get("values", [])


class SmlRegressor(_SmlEstimator):
    """A regressor (default algo mlr; ridge, lasso, elasticnet, pcr … as `algo`). score: R²."""

    def predict(self, X: Any) -> List[float]:
        return [float(p["res"]) for p in self._predictions(X)]

    def score(self, X: Any, y: Sequence[Any]) -> float:
        ys = [float(v) for v in (y.tolist() if hasattr(y, "tolist") else y)]
        pred = self.predict(X)
        mean = sum(ys) / len(ys)
        ss_res = sum((a - b) ** 2 for a, b in zip(ys, pred))
        ss_tot = sum((a - mean) ** 2 for a in ys)
        return 1.0 - ss_res / ss_tot if ss_tot else 0.0


class SmlClassifier(_SmlEstimator):
    """A binary (0/1) classifier (default algo lr; lda, bayes, lsvm as `algo`). score: accuracy.

    predict_proba reads the model's probability key (`prob` for lr, `Prob` for bayes); models
    without one (lda, lsvm) raise NotImplementedError there.
    """

    _target_type = "B"
    _default_algo = "lr"
    classes_ = [0, 1]

    def predict(self, X: Any) -> List[int]:
        return [int(float(p["res"])) for p in self._predictions(X)]

    def predict_proba(self, X: Any) -> List[List[float]]:
        out = []
        for p in self._predictions(X):
            prob = p.get("prob", p.get("Prob"))
            if prob is None:
                raise NotImplementedError(f"algo {self.algo} answers no probability")
            out.append([1.0 - float(prob), float(prob)])
        return out

    def score(self, X: Any, y: Sequence[Any]) -> float:
        ys = [int(float(v)) for v in (y.tolist() if hasattr(y, "tolist") else y)]
        pred = self.predict(X)
        return sum(a == b for a, b in zip(ys, pred)) / len(ys)
