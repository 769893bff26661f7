"""What ``.grad`` holds against what backward delivered, as the records show it.

A healthy step's ``.grad`` is exactly what backward delivered: the monitor then takes its
norm and a zero excess without copying or subtracting anything (``Monitor._split_identical``).
A ``.grad`` changed after backward (clipped) or summed over steps (no zero_grad) must still
be measured: its own norm, and the norm of what it holds beyond the delivered gradient."""
import numpy as np
import pytest

import nndebug as nd


def _train(framework, steps, clip=None, zero_grad=True):
    if framework == "torch":
        torch = pytest.importorskip("torch")
        nn, F, tensor = torch.nn, torch.nn.functional, torch.tensor
        clip_norm = torch.nn.utils.clip_grad_norm_
        torch.manual_seed(0)
    else:
        import minigrad as mg
        nn, F, tensor = mg.nn, mg.nn.functional, mg.tensor
        from minigrad.nn.utils import clip_grad_norm_ as clip_norm
    rng = np.random.default_rng(0)
    x = tensor(rng.normal(size=(32, 6)).astype(np.float32))
    y = tensor(rng.integers(0, 3, size=32))
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    optimizer = (torch.optim.SGD if framework == "torch" else mg.optim.SGD)(
        model.parameters(), lr=0.05)
    with nd.watch(model, optimizer, every=1, overhead=None) as mon:
        for _ in range(steps):
            if zero_grad:
                optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            if clip is not None:
                clip_norm(model.parameters(), clip)
            optimizer.step()
            mon.step(loss)
    return mon.run.records


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_a_healthy_step_holds_exactly_what_backward_delivered(framework):
    for record in _train(framework, 3):
        assert np.array_equal(record.held_norm, record.grad_norm)
        assert np.all(record.held_excess == 0.0)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_clipped_gradients_are_measured_not_assumed(framework):
    for record in _train(framework, 3, clip=1e-3):
        assert np.all(record.held_norm < record.grad_norm)
        assert np.allclose(record.held_excess, record.grad_norm - record.held_norm, rtol=1e-4)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_gradients_summed_over_steps_show_their_excess(framework):
    records = _train(framework, 3, zero_grad=False)
    assert np.all(records[0].held_excess == 0.0)
    for record in records[1:]:
        assert np.all(record.held_excess > 0) and np.all(record.held_norm != record.grad_norm)
