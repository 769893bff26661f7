"""Gradients an eval-mode backward leaves in ``.grad`` for the next training step
(``monitor/carried_gradients.py``, GRADIENTS_ACCUMULATING).

The planted loop validates with backward() and zeroes gradients only after each optimizer
step, so the step after each validation trains on the validation batches too; the healthy
twins validate under no_grad, zero the gradients after an eval-mode backward, or train in
eval mode throughout."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.runfile import _encode_observed, decode_observed

FRAMEWORKS = ["torch", "minigrad"]
STEPS, EVERY = 60, 10


def _framework(name):
    if name == "torch":
        torch = pytest.importorskip("torch")
        torch.manual_seed(0)
        return torch.nn, torch.nn.functional, torch.tensor, torch.optim.SGD, torch.no_grad
    import minigrad as mg
    return mg.nn, mg.nn.functional, mg.tensor, mg.optim.SGD, mg.no_grad


def _train(framework, validate="backward", zero_after_eval=False, eval_throughout=False,
           steps=STEPS, every=EVERY):
    """SGD on a small classification task, zeroing after each step (as the report's loop);
    every ``every`` steps a validation pass on held-out rows: ``validate`` is "backward"
    (the bug), "no_grad" (the fix) or None."""
    nn, F, tensor, SGD, no_grad = _framework(framework)
    rng = np.random.default_rng(0)
    x = tensor(rng.normal(size=(96, 6)).astype(np.float32))
    y = tensor((np.asarray(rng.normal(size=96)) > 0).astype(np.int64))
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = SGD(model.parameters(), lr=0.05)
    if eval_throughout:
        model.eval()
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            loss = F.cross_entropy(model(x[:64]), y[:64])
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            mon.step(loss)
            if validate and step % every == every - 1:
                model.eval()
                if validate == "backward":
                    F.cross_entropy(model(x[64:]), y[64:]).backward()
                    if zero_after_eval:
                        optimizer.zero_grad()
                else:
                    with no_grad():
                        F.cross_entropy(model(x[64:]), y[64:])
                if not eval_throughout:
                    model.train()
    return mon


def _codes(mon, severities=("warning", "error")):
    return {f.code for f in mon.findings() if f.severity in severities}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_validation_gradients_added_to_the_next_step_are_named(framework):
    mon = _train(framework, validate="backward")
    found = {f.code: f for f in mon.findings()}
    assert "GRADIENTS_ACCUMULATING" in found
    # the step after each validation (validations after steps 9, 19, ...), none other
    assert found["GRADIENTS_ACCUMULATING"].evidence["steps"] == [10, 20, 30, 40, 50]
    assert mon.run.observed.carried_eval_gradients == [10, 20, 30, 40, 50]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_validation_under_no_grad_is_silent(framework):
    mon = _train(framework, validate="no_grad")
    assert mon.run.observed.carried_eval_gradients == []
    assert "GRADIENTS_ACCUMULATING" not in _codes(mon)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_an_eval_backward_cleared_before_training_is_silent(framework):
    # an adversarial or saliency backward in eval mode, then zero_grad(): nothing is carried
    mon = _train(framework, validate="backward", zero_after_eval=True)
    assert mon.run.observed.carried_eval_gradients == []
    assert "GRADIENTS_ACCUMULATING" not in _codes(mon)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_model_trained_in_eval_mode_throughout_is_not_this(framework):
    # (frozen batch-norm statistics): every backward is in eval mode, none carries over
    mon = _train(framework, validate="backward", eval_throughout=True, zero_after_eval=True)
    assert mon.run.observed.carried_eval_gradients == []


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_one_eval_backward_is_not_enough(framework):
    mon = _train(framework, validate="backward", steps=15)      # one validation, at step 9
    assert mon.run.observed.carried_eval_gradients == [10]
    assert "GRADIENTS_ACCUMULATING" not in _codes(mon)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_hook_goes_with_the_monitor(framework):
    mon = _train(framework, validate=None, steps=3)
    parameter = mon.around.carried.parameter
    assert mon.closed and mon.around.carried._handle is None
    hooks = getattr(parameter, "_backward_hooks", None) or getattr(parameter, "_hooks", None)
    assert not hooks


def test_the_steps_survive_a_save_and_a_restart():
    mon = _train("minigrad", validate="backward")
    observed = decode_observed(_encode_observed(mon.run.observed))
    assert observed.carried_eval_gradients == [10, 20, 30, 40, 50]
    assert decode_observed({}).carried_eval_gradients == []    # a file from before them
