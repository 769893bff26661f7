"""A model the probes cannot copy gets a clear error (both frameworks). gradcheck, locate,
overfit_one_batch, find_lr and check_dependencies work on a private deep copy, so that the
user's model, optimizer and RNG stay as they were; a module holding a lock (or a file, a
generator, a pool) made them fail with copy's own TypeError from deep inside its stack. They
now raise a ValueError that names what could not be copied and what to do, and the model is
left as it was."""
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class LockedTorchModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 2)
        self.lock = threading.Lock()        # cannot be deep-copied

    def forward(self, x):
        return self.layer(x)


class LockedMinigradModel(mg.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = mg.nn.Linear(4, 2)
        self.lock = threading.Lock()

    def __call__(self, x):
        return self.layer(x)


def _calls(framework):
    if framework == "torch":
        model, x, y = LockedTorchModel(), torch.randn(8, 4), torch.randn(8, 2)
        loss_fn = torch.nn.MSELoss()
        before = [p.detach().clone() for p in model.parameters()]

        def unchanged():
            return all(torch.equal(a, b) for a, b in zip(before, model.parameters())) and \
                model.training
    else:
        model = LockedMinigradModel()
        x = mg.tensor(np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32))
        y = mg.tensor(np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32))
        loss_fn = mg.nn.functional.mse_loss if hasattr(mg.nn, "functional") else \
            (lambda out, target: ((out - target) ** 2).mean())
        before = [np.array(p.data, copy=True) for p in model.parameters()]

        def unchanged():
            return all(np.array_equal(a, p.data) for a, p in zip(before, model.parameters()))
    calls = {
        "gradcheck": lambda: nd.gradcheck(model, x, y, loss_fn),
        "overfit_one_batch": lambda: nd.overfit_one_batch(model, x, y, loss_fn, steps=5),
        "check_dependencies": lambda: nd.check_dependencies(model, x),
    }
    return calls, unchanged


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("probe", ["gradcheck", "overfit_one_batch", "check_dependencies"])
def test_an_uncopyable_model_gets_a_clear_error(framework, probe):
    calls, unchanged = _calls(framework)
    with pytest.raises(ValueError) as raised:
        calls[probe]()
    text = str(raised.value)
    assert "private copy" in text and "lock" in text and "deepcopy" in text
    assert unchanged()
