"""Batched learn and explore as DataFrames against a running system, numbers checked against pandas."""
import numpy as np
import pandas as pd

RNG = np.random.default_rng(11)
DF = pd.DataFrame({"a": RNG.normal(3.0, 2.0, size=5000), "b": RNG.normal(size=5000)})
DF["c"] = 0.5 * DF["a"] + RNG.normal(size=5000)


def test_learn_batches_then_uni_and_bi_as_dataframes(client, project):
    done = client.learn_batches(project, DF, batch_size=700, window=2)
    assert done == {"batches": 8, "rows": 5000}
    uni = client.explore(project, "uni", ["a", "b", "c"])
    assert isinstance(uni, pd.DataFrame) and list(uni.index) == ["a", "b", "c"]
    assert uni.index.name == "attributes"
    assert (uni["count"] == 5000).all()
    np.testing.assert_allclose(uni["mean"], DF.mean(), rtol=1e-9)
    np.testing.assert_allclose(uni["variance"], DF.var(ddof=0), rtol=1e-9)  # population (STATS.md §2)
    assert uni["median"].isna().all()  # no histograms: "NaN" in JSON, NaN here
    bi = client.explore(project, "bi", [["a", "c"], ["b", "c"]])
    assert list(bi.index) == ["a, c", "b, c"]
    np.testing.assert_allclose(bi.loc["a, c", "linCorr"], DF["a"].corr(DF["c"]), rtol=1e-9)
    np.testing.assert_allclose(bi.loc["b, c", "covar"], np.cov(DF["b"], DF["c"], ddof=0)[0, 1], rtol=1e-9)


def test_forget_batches_is_the_inverse(client, project):
    client.learn_batches(project, DF, batch_size=2000)
    client.forget_batches(project, iter([DF[:1000], DF[1000:2500]]), batch_size=600)
    uni = client.explore(project, "uni", ["a"])
    assert uni.loc["a", "count"] == 2500
    np.testing.assert_allclose(uni.loc["a", "mean"], DF["a"][2500:].mean(), rtol=1e-9)


def test_explore_with_targets_and_an_mlcontext(client, project):
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "g": [1, 1, 1, 0, 0, 0], "h": [0, 0, 0, 1, 1, 1]})
    client.learn(project, df)
    anova = client.explore(project, "anova", ["x"], targets=["g", "h"])
    assert list(anova.index) == ["x | g, h"]
    # Groups {1,2,3} and {4,5,6}: SSb = 2·3·1.5² = 13.5, SSw = 4.
    np.testing.assert_allclose(anova.loc["x | g, h", ["SSb", "SSw"]].astype(float), [13.5, 4.0])
    ttest = client.explore(project, "ttestmu", [{"inputAttributeNames": ["x"], "extraParameters": {"sml_explore_ttest_known_mu": "3.5"}}])
    assert ttest.iloc[0]["t"] == 0
