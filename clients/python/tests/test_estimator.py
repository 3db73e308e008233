"""The classifier's mode and classes from its labels; offline (no request is sent)."""
import numpy as np
import pytest

from sml import SmlClassifier


def labels_seen(*batches):
    clf = SmlClassifier(client=None, project="p")
    for y in batches:
        clf._see_labels(y)
    return clf


def test_zero_one_labels_are_binary_and_others_multiclass():
    assert not labels_seen(np.array([0, 1, 1]))._multiclass
    assert not labels_seen([True, False])._multiclass
    clf = labels_seen(np.array(["b", "a", "c"]))
    assert clf._multiclass and clf.classes_ == ["a", "b", "c"] and clf._algorithm() == "mlda"
    assert labels_seen([0, 1, 2]).classes_ == [0, 1, 2]
    assert labels_seen([0, 1])._algorithm() == "lr"


def test_partial_fit_adds_classes_and_binary_stays_binary():
    assert labels_seen(["a", "b"], ["c"]).classes_ == ["a", "b", "c"]
    with pytest.raises(ValueError, match="fitted binary"):
        labels_seen([0, 1], [2])


def test_labels_that_sml_would_merge_are_refused():
    # The T expansion trims and lower-cases values: "Setosa" and "setosa " are one class there.
    with pytest.raises(ValueError, match="one class to SML"):
        labels_seen(["Setosa", "setosa "])
