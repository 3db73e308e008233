"""scikit-learn-style estimators over an SML project, duck-typed (no scikit-learn import).

`fit` learns (X, y) into the project and builds the model; `partial_fit` learns more rows and
rebuilds (SML's summary is additive, so this is exact, not an approximation); `forget(X, y)`
removes rows the same way. scikit-learn's tools that only call fit/predict/score/get_params work
with them; cloning works because get_params/set_params follow its convention.
"""
import math
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


def _list(y: Any) -> List[Any]:
    # numpy/pandas values as Python's (so that 1 == np.int64(1) questions never arise).
    return list(y.tolist() if hasattr(y, "tolist") else y)


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

    def _algorithm(self) -> str:
        return self.algo

    def _targets(self) -> List[str]:
        return [self.target]

    def _frame(self, X: Any, y: Optional[Sequence[Any]] = None) -> Dict[str, Any]:
        rows = _rows(X)
        names = _names(X, len(rows[0]) if rows else 0)
        types = ["C"] * len(names)
        if y is not None:
            ys = _list(y)
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
        ctx: Dict[str, Any] = {"inputAttributeNames": self.feature_names_in_, "targetAttributeNames": self._targets()}
        if self.extra_parameters:
            ctx["extraParameters"] = self.extra_parameters
        job = self.client.operations.buildModel(self.project, query={"modelid": self.model, "algo": self._algorithm()}, json_body=ctx)
        self.client.wait(job, progress=False)

    def fit(self, X: Any, y: Sequence[Any]) -> "_SmlEstimator":
        """Learns (X, y) into the project (created when missing) and builds the model."""
        self._ensure_project()
        return self.partial_fit(X, y)

    def partial_fit(self, X: Any, y: Sequence[Any]) -> "_SmlEstimator":
        """Learns more rows and rebuilds the model from the whole summary."""
        self._see_labels(y)
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

    def _see_labels(self, y: Sequence[Any]) -> None:
        """A classifier's hook to learn its classes from y (regressors have none)."""

    def _predictions(self, X: Any) -> List[Dict[str, str]]:
        res = self.client.operations.predict(self.project, self.model, json_body=self._frame(X))
        return res.values.get("KSVSMap", {}).get("values", [])


class SmlRegressor(_SmlEstimator):
    """A regressor (default algo mlr; ridge, lasso, elasticnet, pcr … as `algo`). score: R²."""

    def predict(self, X: Any) -> List[float]:
        return [float(p["res"]) for p in self._predictions(X)]

    def score(self, X: Any, y: Sequence[Any]) -> float:
        ys = [float(v) for v in _list(y)]
        pred = self.predict(X)
        mean = sum(ys) / len(ys)
        ss_res = sum((a - b) ** 2 for a, b in zip(ys, pred))
        ss_tot = sum((a - mean) ** 2 for a in ys)
        return 1.0 - ss_res / ss_tot if ss_tot else 0.0


class SmlClassifier(_SmlEstimator):
    """A classifier; score: accuracy. Its mode is fixed by the first fit's labels:

    - **binary** — labels within {0, 1} (ints, bools): the target is sent as a B column and the
      default algo is `lr` (`lda`, `bayes`, `lsvm` as `algo`); `predict_proba` reads the
      model's probability (`prob` for lr, `Prob` for bayes), others raise NotImplementedError.
    - **multi-class** — any other labels (strings, 0/1/2 …): the target is sent as a T column,
      which SML expands into one binary attribute per class (`y$setosa`, value trimmed and
      lower-cased), and the model is `mlda` (multi-class LDA over those one-hot targets; the
      only multi-class algorithm built from the summary). Predictions answer the class
      attribute in `res` and one discriminant per class; `predict` maps `res` back to the
      original label, `predict_proba` is the softmax of the discriminants, as scikit-learn's
      LinearDiscriminantAnalysis.predict_proba. Every class needs rows in the first fit (SML
      builds mlda from class attributes present on the same rows).
    """

    _target_type = "B"
    _default_algo = None  # lr (binary) or mlda (multi-class), from the labels

    def _algorithm(self) -> str:
        return self.algo or ("mlda" if self._multiclass else "lr")

    def _see_labels(self, y: Sequence[Any]) -> None:
        labels = set(_list(y))
        if not hasattr(self, "classes_"):
            self._multiclass = not labels <= {0, 1} or self.algo == "mlda"
            self._target_type = "T" if self._multiclass else "B"
            self._keys: Dict[str, Any] = {}
            self.classes_: List[Any] = [0, 1]
        if not self._multiclass:
            if not labels <= {0, 1}:
                raise ValueError(f"this classifier was fitted binary (0/1); labels {sorted(labels - {0, 1}, key=str)} are new")
            return
        for label in labels:
            key = _text(label).strip().lower()  # the T expansion's value (API.md §1)
            if self._keys.setdefault(key, label) != label:
                raise ValueError(f"labels {self._keys[key]!r} and {label!r} are one class to SML (trimmed, lower-cased)")
        self.classes_ = sorted(self._keys.values(), key=lambda v: (str(type(v)), v))

    def _targets(self) -> List[str]:
        if not self._multiclass:
            return [self.target]
        info = self.client.operations.projectInfo(self.project).values.get("smlInfo", {})
        prefix = self.target + str(info.get("categorySeparator") or "$")
        names = {a[len(prefix):]: a for a in info.get("attributeNames", []) if a.startswith(prefix)}
        self._class_attributes = [names[_text(c).strip().lower()] for c in self.classes_]
        return self._class_attributes

    def predict(self, X: Any) -> List[Any]:
        if not self._multiclass:
            return [int(float(p["res"])) for p in self._predictions(X)]
        label = dict(zip(self._class_attributes, self.classes_))
        return [label[p["res"]] for p in self._predictions(X)]

    def predict_proba(self, X: Any) -> List[List[float]]:
        """One row per row of X, one column per class of `classes_`, summing to 1."""
        out = []
        for p in self._predictions(X):
            if self._multiclass:
                out.append(_softmax([float(p[a]) for a in self._class_attributes]))
                continue
            prob = p.get("prob", p.get("Prob"))
            if prob is None:
                raise NotImplementedError(f"algo {self._algorithm()} answers no probability")
            out.append([1.0 - float(prob), float(prob)])
        return out

    def score(self, X: Any, y: Sequence[Any]) -> float:
        ys = _list(y)
        if not self._multiclass:
            ys = [int(float(v)) for v in ys]
        pred = self.predict(X)
        return sum(a == b for a, b in zip(ys, pred)) / len(ys)


def _softmax(scores: List[float]) -> List[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]
