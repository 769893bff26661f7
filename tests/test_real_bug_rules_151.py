"""Real-bug batch 151 (mixed precision): a clip that squares and sums the gradient norms in
float16 overflows above 256, its coefficient max_norm / inf is 0, and from then on every
.grad is exactly 0 at optimizer.step() though backward delivered gradients. The first
steps' loss already fell, so learning does not read as poor; the exact zeros alone are
named (GRADIENTS_CLIPPED_AWAY). The float32 twin is silent, and so is a loop that zeroes
its gradients only during a short warm-up freeze, or clips every step by a healthy norm."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import grad_norm_squared_in_half_overflows_clip as half_clip  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_a_clip_overflowing_to_a_zero_coefficient_is_named():
    mon = half_clip.run()
    found = [f for f in mon.findings() if f.code == "GRADIENTS_CLIPPED_AWAY"]
    assert found and found[0].severity == "error"
    assert "float16" in found[0].message


def test_the_float32_clip_twin_is_silent():
    assert not _codes(half_clip.run(fixed=True))


def _loop(zero_until=0, clip=None, steps=200):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            if step < zero_until:          # a warm-up freeze: the first steps move nothing
                for p in model.parameters():
                    p.grad.zero_()
            if clip is not None:
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            mon.step(loss)
    return mon


def test_gradients_zeroed_only_through_a_warm_up_stay_silent():
    assert "GRADIENTS_CLIPPED_AWAY" not in _codes(_loop(zero_until=40))


def test_gradients_zeroed_for_good_are_named():
    assert "GRADIENTS_CLIPPED_AWAY" in _codes(_loop(zero_until=10 ** 6))


def test_healthy_clipping_stays_silent():
    assert "GRADIENTS_CLIPPED_AWAY" not in _codes(_loop(clip=0.5))
