"""A NaN born in the backward of a cosine's sine or angle (real-bug batch 350: an ArcFace head
taking sin(theta) as sqrt((1 - cos ** 2).clamp(0, 1)), arcface-pytorch#68). A cosine of unit
vectors rounds to exactly +-1 once a feature lines up with its class weight; the square
root's derivative (or acos's) is then infinite, and 0 x inf is NaN. Named
NAN_BORN_IN_BACKWARD from the structure the origin watch read on its first steps
(``fractional_power_of_probability`` and ``inverse_trig_of_squashed`` in
``monitor/fragile_operations.py``). Planted: the benchmark's case at both seed settings and
hand-made graphs of each form. Healthy: the report's fix (the cosine clamped strictly
inside (-1, 1)), a clamp(-1, 1) that does not guard, and products of vectors that are not
unit vectors."""
import pytest

torch = pytest.importorskip("torch")
from torch.nn import functional as F  # noqa: E402

from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402
from benchmarks.real_bugs import arcface_sine_sqrt_nan_at_cosine_one as arcface  # noqa: E402
from nndebug.monitor.fragile_operations import (  # noqa: E402
    fractional_power_of_probability, inverse_trig_of_squashed)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "NAN_BORN_IN_BACKWARD"
F32 = torch.float32


def _found(mon):
    return {f.code: f for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.mark.parametrize("shift", [0, 1000])
def test_the_arcface_head_is_named_at_both_seed_settings(shift):
    with shifted_seeds(shift):
        found = _found(arcface.run(steps=40))
    assert CODE in found
    assert found[CODE].evidence["operation"] == "(1 - cosine ** 2) ** 0.5"
    assert "clamp(-1 + 1e-7, 1 - 1e-7)" in found[CODE].fix
    assert "ArcFace" in found[CODE].message


def test_the_fixed_arcface_head_is_silent():
    assert not _found(arcface.run(fixed=True, steps=60))


def _cosines(clamp=None):
    torch.manual_seed(0)
    features = torch.randn(8, 4, requires_grad=True)
    weight = torch.randn(5, 4, requires_grad=True)
    cos = F.linear(F.normalize(features), F.normalize(weight))
    return cos if clamp is None else cos.clamp(-clamp, clamp)


def _sine(cos):
    return fractional_power_of_probability(torch.sqrt((1 - cos ** 2).clamp(0, 1)).grad_fn, F32)


def _angle(cos):
    return inverse_trig_of_squashed(torch.acos(cos).grad_fn, "acos", F32)


def test_each_form_of_an_unguarded_cosine_is_read():
    cos = _cosines()
    assert _sine(cos) == "(1 - cosine ** 2) ** 0.5"
    assert fractional_power_of_probability(torch.sqrt(1 - cos * cos).grad_fn, F32) == \
        "(1 - cosine ** 2) ** 0.5"
    assert _angle(cos) == "acos(cosine)"
    assert _angle(_cosines(clamp=1.0)) == "acos(cosine)"      # clamp(-1, 1) reaches +-1
    a = torch.randn(6, 4, requires_grad=True)
    pair = F.cosine_similarity(a, torch.randn(6, 4, requires_grad=True))   # two embeddings
    assert _angle(pair) == "acos(cosine)"
    assert inverse_trig_of_squashed(torch.asin(pair).grad_fn, "asin", F32) == "asin(cosine)"


def test_guarded_or_unnormalised_products_are_not_read_as_cosines():
    assert _sine(_cosines(clamp=1 - 1e-7)) is None           # the report's fix
    assert _angle(_cosines(clamp=1 - 1e-7)) is None
    x = torch.randn(8, 4, requires_grad=True)
    w = torch.randn(5, 4, requires_grad=True)
    raw = torch.tanh(x @ w.t()) * 0.5                          # bounded, but no cosine
    assert _sine(x @ w.t()) is None
    assert _angle(raw) is None
    half = F.linear(F.normalize(x), w)                         # one side is no unit vector
    assert _sine(half) is None
