"""A fast subset of benchmarks/core_variants_6.py (the commonest silent bugs written again):
the variants fixed by the sixth campaign's widenings and a few that passed as they came -
each bug named with its expected code, each fixed twin silent - and the healthy look-alikes
of the widenings, on synthetic records where a variant would be slow."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from nndebug import rules  # noqa: E402
from nndebug.monitor.loss_jumps import first_jump  # noqa: E402
from nndebug.probes.dependencies.alignment import probe_label_column  # noqa: E402
from nndebug.records import LayerInfo, ParamInfo, RunRecord, StepRecord  # noqa: E402
from benchmarks import variant_scoring  # noqa: E402
from benchmarks import core_variants_6 as cv  # noqa: E402
from benchmarks.real_bugs._common import classification  # noqa: E402

PROBLEMS = ("warning", "error")
FAST = ["mlp_twelve_tanh_layers_default_init",        # widened: signal_flow.py (steady fall)
        "two_optimizers_only_the_head_zeroed",        # twin's false alarm: setup.py (_moved)
        "label_painted_into_image_corner",            # widened: alignment.py (N-D inputs)
        "gru_rows_in_0_to_255",                       # widened: inputs.py (recurrent first)
        "minigrad_softmax_before_cross_entropy",      # passed as it came
        "layer_norm_shape_includes_batch",            # passed as it came
        "custom_layer_weight_requires_grad_false"]    # passed as it came


pytestmark = pytest.mark.usefixtures("one_torch_thread")   # conftest.py


def _codes(setup):
    return variant_scoring.problem_codes(cv.train, setup)


@pytest.mark.parametrize("name", FAST)
def test_variant_named_and_twin_silent(name):
    v = next(v for v in cv.VARIANTS if v.name == name)
    assert set(_codes(v.build(False))) & set(v.expected)
    assert _codes(v.build(True)) == []


# --- the widenings' healthy look-alikes ----------------------------------------------------

def _deep_run(profile, losses):
    """A run of len(profile) weight tensors whose relative gradients are ``profile``."""
    n = len(losses)
    run = RunRecord(framework="test", has_optimizer=True)
    k = len(profile)
    run.params = [ParamInfo(f"{i}.weight", (8, 8), True, True) for i in range(k)]
    run.layers = [LayerInfo(str(i), "Linear", "other") for i in range(k)]
    run.loss_steps, run.losses, run.n_steps = list(range(n)), list(losses), n
    for i in range(n):
        r = StepRecord(step=i, backward=True, lrs=[0.05])
        r.grad_norm, r.grad_received = np.asarray(profile, float), np.ones(k, bool)
        r.held_norm, r.held_excess = r.grad_norm, np.zeros(k)
        r.param_norm = np.ones(k)
        r.update_norm = np.full(k, 1e-3)
        r.inputs = {"mean": 0.1, "std": 0.9, "batch": 64.0}
        r.output = np.full((4, 10), 0.1) + np.eye(4, 10)
        run.records.append(r)
    return run


def test_a_steady_fall_through_the_depth_is_vanishing_and_one_odd_layer_is_not():
    stuck = np.full(40, 2.3)
    steady = np.geomspace(3e-3, 1.0, 12)            # each layer a fixed factor below the next
    found = {f.code: f for f in rules.diagnose(_deep_run(steady, stuck))}
    assert found["VANISHING_GRADIENTS"].severity == "warning"
    odd = np.r_[3e-3, np.full(11, 1.0)]             # one small first layer, the rest alike
    assert "VANISHING_GRADIENTS" not in {f.code for f in rules.diagnose(_deep_run(odd, stuck))}
    shallow = np.geomspace(3e-3, 1.0, 4)            # too few tensors to call it layer by layer
    assert "VANISHING_GRADIENTS" not in \
        {f.code for f in rules.diagnose(_deep_run(shallow, stuck))}


def test_a_gradual_climb_escalates_and_a_noisy_or_lifted_healthy_curve_does_not():
    rng = np.random.default_rng(0)
    calm = list(1.5 + 0.3 * rng.standard_normal(60))
    climb = calm + [1.5 * 1.25 ** k * (1 + 0.3 * rng.standard_normal()) for k in range(1, 20)]
    assert first_jump(climb) is not None and first_jump(climb) >= 60
    # a warm restart lifts a low loss by half and it stays: no climb (under twice the median)
    lifted = list(0.2 + 0.02 * rng.standard_normal(60)) + \
        list(0.3 + 0.02 * rng.standard_normal(40))
    assert first_jump(lifted) is None


def test_a_diverging_loss_with_gradients_grown_twentyfold_is_exploding():
    n = 40
    losses = np.r_[np.linspace(2.3, 1.2, 25), np.geomspace(1.3, 40.0, 15)]
    run = _deep_run([0.1, 0.1], losses)
    for i, r in enumerate(run.records):
        r.grad_norm = np.full(2, 0.1 if i < 25 else 0.1 * 1.3 ** (i - 24))
    assert "EXPLODING_GRADIENTS" in {f.code for f in rules.diagnose(run)
                                     if f.severity in PROBLEMS}
    # the same growth on a loss that keeps falling: no divergence, no blame
    run = _deep_run([0.1, 0.1], np.linspace(2.3, 0.3, n))
    for i, r in enumerate(run.records):
        r.grad_norm = np.full(2, 0.1 if i < 25 else 0.1 * 1.3 ** (i - 24))
    assert "EXPLODING_GRADIENTS" not in {f.code for f in rules.diagnose(run)
                                         if f.severity in PROBLEMS}


def test_parameters_outside_the_optimizer_that_never_change_are_missing_not_those_that_do():
    run = _deep_run([0.1, 0.1], np.linspace(2.3, 0.3, 40))
    run.params[0] = ParamInfo("0.weight", (8, 8), True, False)
    assert "OPTIMIZER_MISSING_PARAMS" in {f.code for f in rules.diagnose(run)}
    for i, r in enumerate(run.records):               # moved by a second optimizer
        r.param_norm = np.array([1.0 + 0.01 * i, 1.0])
    assert "OPTIMIZER_MISSING_PARAMS" not in {f.code for f in rules.diagnose(run)}


def test_a_label_written_into_an_image_is_a_label_column_and_plain_images_are_not():
    x, y = classification(images=True)
    x, y = x[:64].numpy().copy(), y[:64].numpy()
    assert probe_label_column(x, y) == []
    painted = x.copy()
    painted[:, 0, 0, 0] = y / 9.0
    assert [f.code for f in probe_label_column(painted, y)] == ["TARGETS_IN_INPUTS"]
    # a sequence classifier's (B, T, F) rows: the same reading, flattened
    assert [f.code for f in probe_label_column(painted.reshape(64, 8, 8), y)] == \
        ["TARGETS_IN_INPUTS"]
    assert probe_label_column(x.reshape(64, 8, 8), y) == []
    big = np.zeros((64, 3, 128, 128), np.float32)     # past FLAT_MAX_VALUES: not read
    big[:, 0, 0, 0] = y
    assert probe_label_column(big, y) == []


def test_a_char_lm_embedding_before_its_gru_is_not_raw_inputs_at_a_gru():
    """Token ids (RMS in the tens) reach an Embedding before the GRU: the inputs rule's
    recurrent-first test must not call them unscaled (the mean-context LM's twin)."""
    v = next(v for v in cv.VARIANTS if v.name == "lm_adds_whole_window_mean_context")
    setup = v.build(True)
    setup["data"] = list(setup["data"])[:40]
    assert "UNNORMALIZED_INPUTS" not in _codes(setup)
