"""learn/predict over DataFrames and the estimators, numbers checked against numpy's least squares."""
import numpy as np
import pandas as pd
import pytest

from sml import SmlClassifier, SmlRegressor

RNG = np.random.default_rng(7)
X = pd.DataFrame({"a": RNG.normal(size=200), "b": RNG.normal(size=200)})
Y = 1.5 + 2.0 * X["a"] - 0.5 * X["b"] + RNG.normal(scale=0.1, size=200)


def ols(x, y, at=None):
    """numpy's least-squares fit (with intercept) of y on x, evaluated at `at` (default x)."""
    design = np.column_stack([np.ones(len(x)), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    at = x if at is None else at
    return np.column_stack([np.ones(len(at)), at]) @ coef


def test_learn_build_predict_matches_numpy_least_squares(client, project):
    client.learn(project, X.assign(y=Y))
    job = client.operations.buildModel(project, query={"modelid": "m", "algo": "mlr"},
                                       json_body={"inputAttributeNames": ["a", "b"], "targetAttributeNames": ["y"]})
    assert job.status == 202
    client.wait(job)
    out = client.predict(project, "m", X)
    assert isinstance(out, pd.DataFrame) and len(out) == len(X)
    np.testing.assert_allclose(out["res"].to_numpy(), ols(X.to_numpy(), Y.to_numpy()), rtol=1e-6, atol=1e-6)


def test_regressor_fit_partial_fit_forget(client, project):
    reg = SmlRegressor(client, project).fit(X[:100], Y[:100])
    np.testing.assert_allclose(reg.predict(X), ols(X[:100].to_numpy(), Y[:100].to_numpy(), X.to_numpy()), rtol=1e-6, atol=1e-6)
    reg.partial_fit(X[100:], Y[100:])
    np.testing.assert_allclose(reg.predict(X), ols(X.to_numpy(), Y.to_numpy()), rtol=1e-6, atol=1e-6)
    assert reg.score(X, Y) > 0.99
    reg.forget(X[100:], Y[100:])  # back to the first half's model exactly
    np.testing.assert_allclose(reg.predict(X), ols(X[:100].to_numpy(), Y[:100].to_numpy(), X.to_numpy()), rtol=1e-6, atol=1e-6)
    assert reg.get_params()["algo"] == "mlr"


def test_classifier_predict_proba_and_score(client, project):
    y = (X["a"] + 0.3 * X["b"] > 0).astype(int)
    clf = SmlClassifier(client, project).fit(X, y)
    proba = np.array(clf.predict_proba(X))
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert ((proba[:, 1] > 0.5).astype(int) == np.array(clf.predict(X))).mean() > 0.95
    assert clf.score(X, y) > 0.9


def lda_proba(x, labels, at):
    """numpy's LDA (scikit-learn's LinearDiscriminantAnalysis: priors n_k/n, within-class
    covariance ÷ n): the softmax of the discriminants, classes in sorted order."""
    classes = sorted(set(labels))
    labels = np.asarray(labels)
    means = [x[labels == c].mean(axis=0) for c in classes]
    cov = sum(((x[labels == c] - m).T @ (x[labels == c] - m)) for c, m in zip(classes, means)) / len(x)
    inv = np.linalg.inv(cov)
    d = np.column_stack([at @ inv @ m - 0.5 * m @ inv @ m + np.log((labels == c).mean()) for c, m in zip(classes, means)])
    e = np.exp(d - d.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_multiclass_classifier_matches_numpy_lda(client, project):
    centers = {"Setosa": (0.0, 0.0), "versicolor": (2.5, 0.0), "virginica": (0.0, 2.5)}
    labels = np.array(list(centers))[RNG.integers(0, 3, size=300)]
    x = np.array([centers[c] for c in labels]) + RNG.normal(size=(300, 2))
    df = pd.DataFrame(x, columns=["a", "b"])
    clf = SmlClassifier(client, project, target="species").fit(df, pd.Series(labels))
    assert clf.classes_ == ["Setosa", "versicolor", "virginica"]  # original labels, not SML's y$setosa
    proba = np.array(clf.predict_proba(df))
    np.testing.assert_allclose(proba, lda_proba(x, labels, x), rtol=1e-6, atol=1e-9)
    pred = clf.predict(df)
    assert pred == [clf.classes_[i] for i in proba.argmax(axis=1)]
    assert clf.score(df, labels) == (np.array(pred) == labels).mean() > 0.8
    assert clf.get_params()["algo"] is None  # chosen from the labels: mlda here, lr for 0/1
