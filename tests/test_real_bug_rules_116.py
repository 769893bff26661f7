"""Real-bug batch 116 (neural style transfer, perceptual losses): optimisers given a closure.
L-BFGS evaluates ``optimizer.step(closure)``'s closure up to ``max_iter`` times per step,
each time with its own zero_grad and backward: a healthy style transfer drew
GRADIENTS_DISCARDED (``.grad`` at the step holds the last evaluation's gradient, a fraction
of what all of the step's backward passes delivered) and EXPLODING_GRADIENTS as a warning
("learning is poor": the run is at its optimum within its first window, whose median was
taken as the start). Steps given a closure are noted (``run.observed.closure_steps``);
they discharge GRADIENTS_DISCARDED and the gain is measured from the first loss. The same
healthy L-BFGS fits stay silent; a zero_grad between two backward passes of one plain
step is still named (``tests/test_gradients_discarded.py``: no closure there)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import image_clamped_inside_lbfgs_closure as case  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _lbfgs_fit(steps=15, max_iter=20):
    """A small regression fitted by L-BFGS with a closure (full batch)."""
    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = (x @ torch.randn(8, 1)).tanh() + 0.05 * torch.randn(256, 1)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    optimizer = torch.optim.LBFGS(model.parameters(), max_iter=max_iter)

    def closure():
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        return loss

    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            loss = optimizer.step(closure)
            mon.step(loss)
    return mon


def test_an_lbfgs_fit_is_silent_and_its_closures_noted():
    mon = _lbfgs_fit()
    assert not _problems(mon)
    assert [row[0] for row in mon.run.observed.closure_steps] == [0, 1, 2, 3]


def test_the_style_transfer_twin_is_silent():
    assert not _problems(case.run(fixed=True))
