"""The planted-bug catalogue: every bug really changes gradients, and plant() always restores.

Every test that loops over bugs is parametrised over ``catalogue()``, so a newly
defined bug is tested the moment it exists: its example must run without a
crash, its gradients must differ clearly from the correct ones (which finite
differences confirm are correct) and be restored exactly afterwards.
"""
import dataclasses

import numpy as np
import pytest

import minigrad as mg
from minigrad import autograd
from minigrad.bugs import ENGINE, UnknownBugError, catalogue, get, plant
from minigrad.ops import REGISTRY

BUGS = catalogue()
SEEDS = (0, 1, 2)


def run_example(bug, seed):
    """Build the bug's example for ``seed``; return (leaves, forward, cotangent)."""
    rng = np.random.default_rng(seed)
    leaves, forward = bug.example(rng)
    out = forward()
    cotangent = rng.standard_normal(out.shape)   # random, never all-ones: ones hide transposes
    return leaves, forward, cotangent


def gradients(leaves, forward, cotangent):
    for t in leaves.values():
        t.grad = None
    out = forward()
    out.backward(cotangent)
    return {name: np.array(t.grad, copy=True) for name, t in leaves.items()}


def finite_difference(leaves, forward, cotangent, eps=1e-6):
    """Central differences of <forward(), cotangent> with respect to every leaf element."""
    result = {}
    with mg.no_grad():
        for name, t in leaves.items():
            numeric = np.zeros_like(t.data)
            for i in np.ndindex(t.shape):
                saved = t.data[i]
                t.data[i] = saved + eps
                up = np.sum(forward().data * cotangent)
                t.data[i] = saved - eps
                down = np.sum(forward().data * cotangent)
                t.data[i] = saved
                numeric[i] = (up - down) / (2 * eps)
            result[name] = numeric
    return result


def attribute_of(bug):
    if bug.op == ENGINE:
        return vars(autograd)["accumulate"]
    return vars(REGISTRY[bug.op])["backward"]


def largest_difference(a, b):
    return max(float(np.max(np.abs(a[k] - b[k]))) for k in a)


# --- the catalogue itself ----------------------------------------------------

def test_first_bug_is_on_a_registered_matmul():
    assert BUGS[0].op in REGISTRY
    assert BUGS[0].op == "matmul"


def test_catalogue_is_large_varied_and_named_uniquely():
    names = [b.name for b in BUGS]
    assert len(BUGS) >= 15
    assert len(set(names)) == len(names)
    assert len({b.op for b in BUGS}) >= 12          # spread over many primitives
    assert any(b.op == ENGINE for b in BUGS)


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_bug_is_fully_described(bug):
    assert isinstance(bug, mg.bugs.Bug)
    assert bug.op == ENGINE or bug.op in REGISTRY
    for text in (bug.name, bug.summary, bug.lesson, bug.symptom, bug.family):
        assert isinstance(text, str) and text.strip()
    assert "crash" in bug.lesson.lower()              # every lesson says why nothing crashes
    assert callable(bug.backward) and callable(bug.example)
    with pytest.raises(dataclasses.FrozenInstanceError):
        bug.name = "renamed"


def test_example_exercises_the_bugs_op():
    for bug in BUGS:
        if bug.op == ENGINE:
            continue
        seen = []
        leaves, forward = bug.example(np.random.default_rng(0))
        with autograd.observe_ops(lambda record: seen.append(record.name)):
            forward()
        assert bug.op in seen, f"the example of {bug.name} never runs {bug.op}"


# --- every bug changes gradients, and only while planted -----------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_planted_bug_changes_gradients_and_is_restored_exactly(bug, seed):
    leaves, forward, cotangent = run_example(bug, seed)
    original = attribute_of(bug)
    correct = gradients(leaves, forward, cotangent)

    with plant(bug.name) as planted:
        assert planted is bug
        assert attribute_of(bug) is not original
        for t in leaves.values():
            t.grad = None
        out = forward()                               # forward + backward: no crash
        out.backward(cotangent)
        faulty = {name: t.grad for name, t in leaves.items()}

    assert attribute_of(bug) is original              # the very same object is back
    for name, t in leaves.items():
        assert faulty[name].shape == t.shape
        assert np.all(np.isfinite(faulty[name]))
    scale = max(float(np.max(np.abs(g))) for g in correct.values())
    assert largest_difference(faulty, correct) > 1e-2 * scale, f"{bug.name} changed nothing"

    after = gradients(leaves, forward, cotangent)
    for name in correct:
        np.testing.assert_array_equal(after[name], correct[name])


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_finite_differences_agree_with_correct_backward_and_not_with_bug(bug):
    leaves, forward, cotangent = run_example(bug, seed=3)
    numeric = finite_difference(leaves, forward, cotangent)
    correct = gradients(leaves, forward, cotangent)
    for name in numeric:
        np.testing.assert_allclose(correct[name], numeric[name], rtol=1e-5, atol=1e-7)
    with plant(bug.name):
        faulty = gradients(leaves, forward, cotangent)
    worst = max(float(np.max(np.abs(faulty[k] - numeric[k]) / (np.abs(numeric[k]) + 1e-3)))
                for k in numeric)
    assert worst > 1e-2


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_bug_survives_float32_and_other_dtype_paths(bug):
    """Planted bugs must not crash on the default float32 dtype either."""
    leaves, forward, cotangent = run_example(bug, seed=4)
    for t in leaves.values():
        t.data = t.data.astype(np.float32)
    with plant(bug.name):
        out = forward()
        out.backward(cotangent.astype(out.dtype))
    for t in leaves.values():
        assert t.grad.shape == t.shape and np.all(np.isfinite(t.grad))


def test_engine_bug_is_invisible_without_reuse():
    """The lesson's claim: a plain chain (no tensor used twice) is still exactly right."""
    rng = np.random.default_rng(5)
    x = mg.tensor(rng.standard_normal((3, 4)), requires_grad=True, dtype=np.float64)
    w = mg.tensor(rng.standard_normal((4, 2)), requires_grad=True, dtype=np.float64)
    cot = rng.standard_normal((3, 2))
    leaves = {"x": x, "w": w}
    chain = lambda: (x @ w).tanh()  # noqa: E731
    correct = gradients(leaves, chain, cot)
    with plant("engine_overwrites_reused_gradient"):
        faulty = gradients(leaves, chain, cot)
    for name in correct:
        np.testing.assert_array_equal(faulty[name], correct[name])


def test_matmul_bug_is_a_pure_transpose_on_square_weights():
    """The lesson's claim: on a square weight the bug is exactly the transpose."""
    rng = np.random.default_rng(6)
    x = mg.tensor(rng.standard_normal((5, 3)), requires_grad=True, dtype=np.float64)
    w = mg.tensor(rng.standard_normal((3, 3)), requires_grad=True, dtype=np.float64)
    cot = rng.standard_normal((5, 3))
    correct = gradients({"w": w}, lambda: x @ w, cot)["w"]
    with plant("matmul_weight_grad_transposed"):
        faulty = gradients({"w": w}, lambda: x @ w, cot)["w"]
    np.testing.assert_allclose(faulty, correct.T, rtol=1e-12)


# --- plant() restores in every situation -----------------------------------------

def test_plant_restores_after_an_exception():
    bug = BUGS[0]
    original = attribute_of(bug)
    with pytest.raises(RuntimeError, match="boom"):
        with plant(bug.name):
            raise RuntimeError("boom")
    assert attribute_of(bug) is original


def test_engine_plant_restores_after_an_exception():
    original = vars(autograd)["accumulate"]
    with pytest.raises(ZeroDivisionError):
        with plant("engine_overwrites_reused_gradient"):
            assert autograd.accumulate is not original
            1 / 0
    assert vars(autograd)["accumulate"] is original


def test_nested_plants_restore_in_order():
    by_op = {}
    for bug in BUGS:
        by_op.setdefault(bug.op, []).append(bug)
    a, b = BUGS[0], next(bug for bug in BUGS if bug.op not in (BUGS[0].op,))
    original_a, original_b = attribute_of(a), attribute_of(b)
    with plant(a.name):
        inner_a = attribute_of(a)
        with plant(b.name):
            with plant(a.name):                      # the same bug twice
                assert attribute_of(a) is not original_a
            assert attribute_of(a) is inner_a         # the outer plant is still in force
            assert attribute_of(b) is not original_b
        assert attribute_of(b) is original_b
    assert attribute_of(a) is original_a and attribute_of(b) is original_b


def test_same_bug_nested_with_an_exception_inside_restores_the_original():
    bug = get("engine_overwrites_reused_gradient")
    original = attribute_of(bug)
    with pytest.raises(KeyError):
        with plant(bug.name):
            with plant(bug.name):
                raise KeyError("inside")
    assert attribute_of(bug) is original


def test_plant_of_an_inherited_backward_removes_it_again():
    """A primitive whose class only inherits backward gets no leftover attribute."""
    class Base(mg.Function):
        @staticmethod
        def backward(ctx, grad):
            return (grad,)

    class Child(Base):
        name = "tanh"

    bug = get("tanh_not_squared")
    saved = REGISTRY["tanh"]
    REGISTRY["tanh"] = Child
    try:
        with plant(bug):
            assert "backward" in vars(Child)
        assert "backward" not in vars(Child)
    finally:
        REGISTRY["tanh"] = saved


def test_plant_changes_training_not_only_gradients_of_examples():
    """A planted bug reaches every use of the op: a Tensor method uses it too."""
    x = mg.tensor([[-0.8, 0.3]], requires_grad=True, dtype=np.float64)
    x.tanh().sum().backward()
    correct = x.grad.copy()
    x.grad = None
    with plant("tanh_not_squared"):
        x.tanh().sum().backward()
    t = np.tanh(x.data)
    np.testing.assert_allclose(correct, 1 - t ** 2)
    np.testing.assert_allclose(x.grad, 1 - t)


# --- errors ----------------------------------------------------------------------

def test_unknown_name_lists_valid_names_and_suggests():
    with pytest.raises(UnknownBugError) as info:
        with plant("tanh_not_squard"):
            pass
    message = str(info.value)
    assert "tanh_not_squard" in message and "did you mean 'tanh_not_squared'" in message
    for bug in BUGS:
        assert bug.name in message
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)


def test_bug_on_a_missing_primitive_is_not_listed_and_explains_itself(monkeypatch):
    bug = get("tanh_not_squared")
    monkeypatch.delitem(REGISTRY, "tanh")
    assert bug not in catalogue()
    with pytest.raises(UnknownBugError, match="plants into the primitive 'tanh'"):
        get("tanh_not_squared")


def test_unknown_name_leaves_everything_untouched():
    before = {name: vars(cls).get("backward") for name, cls in REGISTRY.items()}
    with pytest.raises(KeyError):
        get("no_such_bug")
    after = {name: vars(cls).get("backward") for name, cls in REGISTRY.items()}
    assert all(before[k] is after[k] for k in before)
