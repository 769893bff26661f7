"""check_data: planted data problems are found with the right counts; healthy data is quiet."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nndebug as nd
from nndebug.probes import data_checks


def codes(findings, severities=("warning", "error")):
    return [f.code for f in findings if f.severity in severities]


def by_code(findings, code):
    found = [f for f in findings if f.code == code]
    assert found, f"{code} not among {[f.code for f in findings]}"
    return found[0]


def healthy(n_train=400, n_test=100, d=12, classes=4, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_train + n_test, d))
    y = np.arange(n_train + n_test) % classes
    rng.shuffle(y)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def digits_split():
    from minigrad.data import load_digits
    x, y = load_digits()          # pixels scaled to [0, 1]
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    return x[:1400], y[:1400], x[1400:], y[1400:]


# --- healthy data: no warnings -----------------------------------------------------------

def test_healthy_gaussian_data_has_no_warning():
    assert codes(nd.check_data(*healthy())) == []


def test_real_digits_data_has_no_warning_only_info_about_blank_border_pixels():
    findings = nd.check_data(*digits_split())
    assert codes(findings) == []
    constant = by_code(findings, "CONSTANT_FEATURES")
    assert constant.severity == "info" and constant.evidence["constant_count"] >= 1


def test_train_only_call_works():
    x, y, _, _ = healthy()
    assert codes(nd.check_data(x, y)) == []


def test_regression_targets_get_no_class_findings():
    x, _, xt, _ = healthy()
    rng = np.random.default_rng(1)
    found = nd.check_data(x, rng.normal(size=len(x)), xt, rng.normal(size=len(xt)))
    assert not [f for f in found if "CLASS" in f.code]


# --- NaN / Inf -------------------------------------------------------------------------------

def test_nan_and_inf_are_counted_with_their_rows():
    x, y, xt, yt = healthy()
    x[[3, 50, 50], [0, 1, 2]] = [np.nan, np.nan, np.inf]
    xt[7, 4] = -np.inf
    found = nd.check_data(x, y, xt, yt)
    train = [f for f in found if f.code == "NAN_IN_DATA" and f.where == "x_train"][0]
    assert train.severity == "error"
    assert train.evidence["nan_count"] == 2 and train.evidence["inf_count"] == 1
    assert train.evidence["rows_affected"] == 2 and train.evidence["example_rows"] == [3, 50]
    test = [f for f in found if f.code == "NAN_IN_DATA" and f.where == "x_test"][0]
    assert test.evidence["example_rows"] == [7]
    assert found[0].severity == "error"          # most severe first


def test_nan_in_float_targets_is_found():
    x, _, _, _ = healthy()
    y = np.random.default_rng(0).normal(size=len(x))
    y[11] = np.nan
    f = by_code(nd.check_data(x, y), "NAN_IN_DATA")
    assert f.where == "y_train" and f.evidence["example_rows"] == [11]


# --- duplicates --------------------------------------------------------------------------

def test_exact_duplicates_across_splits_counted_with_pairs_and_label_conflicts():
    x, y, xt, yt = healthy()
    xt[[2, 9, 30]] = x[[5, 6, 7]]
    yt[2], yt[9], yt[30] = y[5], y[6], (y[7] + 1) % 4       # one copy with a different label
    f = by_code(nd.check_data(x, y, xt, yt), "DUPLICATES_ACROSS_SPLITS")
    assert f.severity == "warning"
    assert f.evidence["count"] == 3
    assert f.evidence["example_pairs"] == [{"test": 2, "train": 5}, {"test": 9, "train": 6},
                                           {"test": 30, "train": 7}]
    assert f.evidence["label_conflicts"] == 1


def test_negative_zero_counts_as_a_duplicate_of_zero():
    x, y, xt, yt = healthy()
    x[0, :] = 0.0
    xt[0, :] = -0.0
    assert by_code(nd.check_data(x, y, xt, yt), "DUPLICATES_ACROSS_SPLITS").evidence["count"] == 1


@settings(max_examples=25, deadline=None)
@given(st.sets(st.integers(0, 99), min_size=1, max_size=20), st.integers(0, 10_000))
def test_duplicate_count_equals_number_of_planted_copies(test_rows, seed):
    x, y, xt, yt = healthy(seed=seed)
    rng = np.random.default_rng(seed)
    rows = sorted(test_rows)
    sources = rng.choice(len(x), size=len(rows), replace=False)
    xt[rows] = x[sources]
    f = by_code(nd.check_data(x, y, xt, yt), "DUPLICATES_ACROSS_SPLITS")
    assert f.evidence["count"] == len(rows)
    assert [p["test"] for p in f.evidence["example_pairs"]] == rows[:5]


def test_near_duplicates_found_on_digits_and_exact_ones_not_double_counted():
    x, y, xt, yt = digits_split()
    rng = np.random.default_rng(0)
    xt[:6] = x[10:16] + 0.002 * rng.normal(size=(6, 64))     # a little noise: near copies
    xt[6] = x[20]                                              # an exact copy
    found = nd.check_data(x, y, xt, yt)
    near = by_code(found, "NEAR_DUPLICATES_ACROSS_SPLITS")
    assert near.evidence["count"] == 6
    assert [p["train"] for p in near.evidence["example_pairs"]] == [10, 11, 12, 13, 14]
    assert by_code(found, "DUPLICATES_ACROSS_SPLITS").evidence["count"] == 1


def test_duplicates_within_train_are_only_info():
    x, y, xt, yt = healthy()
    x[10] = x[3]
    f = by_code(nd.check_data(x, y, xt, yt), "DUPLICATES_WITHIN_TRAIN")
    assert f.severity == "info" and f.evidence["example_pairs"] == [{"row": 10, "first": 3}]


# --- classes -------------------------------------------------------------------------------

def test_class_imbalance_over_10_to_1():
    x, _, _, _ = healthy(n_train=420)
    y = np.array([0] * 200 + [1] * 200 + [2] * 19 + [3] * 1)
    f = by_code(nd.check_data(x, y), "CLASS_IMBALANCE")
    assert f.evidence["class_counts"] == {0: 200, 1: 200, 2: 19, 3: 1}
    assert f.evidence["ratio"] == 200.0 and f.evidence["rare_classes"] == [2, 3]
    assert f.evidence["example_rows_of_rare_classes"] == [400, 401, 402, 403, 404]


def test_imbalance_of_9_to_1_is_not_flagged():
    x, _, _, _ = healthy(n_train=100)
    y = np.array([0] * 90 + [1] * 10)
    assert "CLASS_IMBALANCE" not in codes(nd.check_data(x, y))


def test_one_hot_and_binary_float_labels_are_understood():
    x, _, _, _ = healthy(n_train=330)
    labels = np.array([0] * 300 + [1] * 30 + [2] * 0)
    onehot = np.eye(3)[labels]
    assert "CLASS_IMBALANCE" not in codes(nd.check_data(x, onehot))      # 10:1 exactly
    binary = np.array([0.0] * 320 + [1.0] * 10)
    assert by_code(nd.check_data(x, binary), "CLASS_IMBALANCE").evidence["ratio"] == 32.0


def test_single_class_and_classes_missing_from_train():
    x, _, xt, _ = healthy()
    found = nd.check_data(x, np.zeros(len(x), dtype=int), xt, np.arange(len(xt)) % 3)
    assert by_code(found, "CLASS_IMBALANCE").evidence["ratio"] == float("inf")
    assert by_code(found, "CLASSES_MISSING_FROM_TRAIN").evidence["classes"] == [1, 2]


# --- scale --------------------------------------------------------------------------------

def test_raw_pixels_are_not_normalized_but_scaled_ones_are():
    from minigrad.data import load_digits
    raw, y = load_digits(scale=False)
    f = by_code(nd.check_data(raw, y), "NOT_NORMALIZED")
    assert f.where == "x_train" and f.evidence["max"] == 16.0
    assert "NOT_NORMALIZED" not in codes(nd.check_data(raw / 16, y))


def test_one_offset_feature_and_mixed_scales_and_tiny_scale_are_flagged():
    x, y, _, _ = healthy()
    offset = x.copy()
    offset[:, 3] += 2000.0                                      # e.g. a year column
    f = by_code(nd.check_data(offset, y), "NOT_NORMALIZED")
    assert f.evidence["example_features"][0] == 3
    mixed = x * np.array([1.0] * 11 + [1000.0])
    assert "NOT_NORMALIZED" in codes(nd.check_data(mixed, y))
    assert "NOT_NORMALIZED" in codes(nd.check_data(x * 1e-4, y))


def test_test_split_left_unnormalized_is_caught():
    x, y, xt, yt = healthy()
    found = nd.check_data(x, y, xt * 40 + 100, yt)
    assert by_code(found, "SPLITS_SCALED_DIFFERENTLY").where == "x_test"
    assert [f.where for f in found if f.code == "NOT_NORMALIZED"] == ["x_test"]


def test_constant_features_severity_grows_with_their_share():
    x, y, _, _ = healthy()
    few = x.copy()
    few[:, 0] = 1.0
    f = by_code(nd.check_data(few, y), "CONSTANT_FEATURES")
    assert f.severity == "info" and f.evidence["example_features"] == [0]
    most = x.copy()
    most[:, :8] = 0.0
    assert by_code(nd.check_data(most, y), "CONSTANT_FEATURES").severity == "warning"
    assert by_code(nd.check_data(np.ones_like(x), y), "CONSTANT_FEATURES").severity == "error"


# --- frameworks and bad input ----------------------------------------------------------------

def _summary(findings):
    return [(f.code, f.severity, f.where, f.evidence.get("count")) for f in findings]


def test_torch_and_minigrad_tensors_give_the_same_findings_as_numpy():
    torch = pytest.importorskip("torch")
    import minigrad as mg
    x, y, xt, yt = healthy()
    xt[:4] = x[:4]
    x[9, 1] = np.nan
    y[:300] = 0
    expected = _summary(nd.check_data(x, y, xt, yt))
    assert {"DUPLICATES_ACROSS_SPLITS", "NAN_IN_DATA", "CLASS_IMBALANCE"} <= {c for c, *_ in expected}
    as_torch = [torch.tensor(a) for a in (x, y, xt, yt)]
    as_mg = [mg.tensor(a) for a in (x, y, xt, yt)]
    assert _summary(nd.check_data(*as_torch)) == expected
    assert _summary(nd.check_data(*as_mg)) == expected


def test_images_are_checked_as_flattened_features():
    x, y, xt, yt = healthy(d=16)
    xt[5] = x[8]
    found = nd.check_data(x.reshape(-1, 1, 4, 4), y, xt.reshape(-1, 1, 4, 4), yt)
    assert by_code(found, "DUPLICATES_ACROSS_SPLITS").evidence["example_pairs"] == [{"test": 5, "train": 8}]


def test_bad_inputs_get_clear_errors():
    x, y, xt, yt = healthy()
    with pytest.raises(ValueError, match="x_train has 400 samples but y_train has 399"):
        nd.check_data(x, y[:-1])
    with pytest.raises(ValueError, match="same features"):
        nd.check_data(x, y, xt[:, :5], yt)
    with pytest.raises(ValueError, match="y_test given without x_test"):
        nd.check_data(x, y, None, yt)
    with pytest.raises(TypeError, match="must hold numbers"):
        nd.check_data(np.array([["a"], ["b"]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="x_test has 100 samples but y_test has 99"):
        nd.check_data(x, y, xt, yt[:-1])


def test_large_test_sets_are_sampled_for_near_duplicates(monkeypatch):
    monkeypatch.setattr(data_checks, "NEAR_DUPLICATE_BUDGET", 400 * 30)
    x, y, xt, yt = healthy()
    xt[:] = xt[:] * 1e-9 + np.repeat(x[:1], len(xt), axis=0)   # every test row a near copy of row 0
    xt[:, 0] += np.arange(len(xt)) * 1e-9                       # ... but no exact copies
    near = by_code(nd.check_data(x, y, xt, yt), "NEAR_DUPLICATES_ACROSS_SPLITS")
    assert near.evidence["sampled"] and near.evidence["checked_test_rows"] == 30


def test_an_empty_split_is_a_clear_error_not_a_crash():
    x, y = np.random.default_rng(0).normal(size=(20, 4)), np.arange(20) % 2
    with pytest.raises(ValueError, match="x_test is empty.*leave the test split out"):
        nd.check_data(x, y, x[:0], y[:0])
    with pytest.raises(ValueError, match="x_train is empty"):
        nd.check_data(x[:0], y[:0])
