"""Real-bug batch 74 (gradient accumulation and the effective batch size): a loss divided by
the accumulation count twice - by the training step and again by the trainer - so that SGD
steps on 1/N of the mean loss's gradient (LR_TOO_LOW, widened: the weight backward gives
the loss calls between two optimizer steps, ``monitor/loss_weights.py``). The planted case
and variants (four micro-batches whose divided losses are summed before one backward, a
regression by MSE) are named; the fixed twins stay silent, and so do the healthy look-alikes
a careless rule would flag: accumulation divided once, the same double division under Adam
(which divides the scale out), a weighted auxiliary loss beside a full one, a loss scaled
up for backward and unscaled by hand, and a validation loss computed inside the window.
The other four cases of the batch were named as they came (their tests are the benchmark's
own, ``tests/test_real_bugs.py``)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import accumulated_loss_divided_twice as twice  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp, regression  # noqa: E402
from nndebug.monitor.loss_weights import OBSERVED_STEPS  # noqa: E402
from nndebug.rules.learning_rate import LOSS_WEIGHT_LOW  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


def _weights(mon):
    """The summed loss weight of each optimizer step read (read when findings are asked)."""
    mon.findings()
    weights = [w for _, w in mon.run.observed.loss_weights]
    assert len(weights) >= 2
    return weights


def _accumulated(divide_by, accumulate=8, steps=150, optimizer="sgd", lr=0.2, loss_fn=None,
                 data=None, one_backward=False, aux_weight=None, scale=None, validate=False):
    """A digits MLP stepped once per ``accumulate`` micro-batches of 16, each loss divided by
    ``divide_by`` before backward (``accumulate`` is the healthy divisor)."""
    import nndebug as nd
    torch.manual_seed(0)
    x, y = data or classification()
    model = mlp(outputs=1 if data else 10)
    make = torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam
    opt = make(model.parameters(), lr=lr)
    loss_fn = loss_fn or nn.CrossEntropyLoss()
    aux_fn = nn.CrossEntropyLoss()
    micro = batches(x, y, steps * accumulate, batch_size=16)
    with nd.watch(model, opt) as mon:
        for _ in range(steps):
            opt.zero_grad()
            total = 0
            for _ in range(accumulate):
                xb, yb = next(micro)
                out = model(xb)
                loss = loss_fn(out.squeeze(-1) if data else out, yb)
                term = loss / divide_by
                if aux_weight is not None:       # a second head's loss, weighted down
                    term = term + aux_weight * aux_fn(out * 0.5, yb) / accumulate
                if scale is not None:
                    term = term * scale
                if one_backward:
                    total = total + term
                else:
                    term.backward()
            if one_backward:
                total.backward()
            if scale is not None:                # unscaled by hand before the step
                for p in model.parameters():
                    p.grad /= scale
            if validate:                         # a validation loss inside the window
                with torch.no_grad():
                    loss_fn(model(x[:64]), y[:64])
            opt.step()
            mon.step(loss)
    return mon


# --- the planted case -------------------------------------------------------------------

def test_a_loss_divided_by_the_accumulation_count_twice_is_named():
    mon = twice.run()
    found = _found(mon, "LR_TOO_LOW")
    assert found
    assert found[0].evidence["loss_weight_per_step"] == pytest.approx(1 / twice.ACCUMULATE)
    assert _weights(mon) == pytest.approx([1 / twice.ACCUMULATE] * len(_weights(mon)))


def test_the_twin_divided_once_is_silent_and_weighs_one():
    mon = twice.run(fixed=True)
    assert not _problems(mon)
    weights = _weights(mon)
    assert weights == pytest.approx([1.0] * len(weights))


# --- variants -----------------------------------------------------------------------------

def test_divided_twice_then_summed_before_one_backward_is_named():
    mon = _accumulated(divide_by=16, accumulate=4, one_backward=True, lr=0.1)
    found = _found(mon, "LR_TOO_LOW")
    assert found and found[0].evidence["loss_weight_per_step"] == pytest.approx(0.25)


def test_a_regression_divided_twice_is_named():
    x, y = regression()
    mon = _accumulated(divide_by=64, data=(x, y), loss_fn=nn.MSELoss(), lr=0.05)
    found = _found(mon, "LR_TOO_LOW")
    assert found and found[0].evidence["loss_weight_per_step"] == pytest.approx(0.125)


# --- healthy look-alikes ------------------------------------------------------------------

def test_accumulation_divided_once_weighs_one():
    mon = _accumulated(divide_by=4, accumulate=4, one_backward=True, lr=0.1)
    assert "LR_TOO_LOW" not in _problems(mon)
    assert _weights(mon) == pytest.approx([1.0] * len(_weights(mon)))


def test_adam_divides_the_scale_out():
    # the same double division under Adam: the steps are as large as they would be
    mon = _accumulated(divide_by=64, optimizer="adam", lr=1e-3)
    assert min(_weights(mon)) < LOSS_WEIGHT_LOW
    assert not _problems(mon)


def test_a_weighted_auxiliary_loss_beside_a_full_one_is_not_a_small_weight():
    # the auxiliary loss reaches the step with weight 0.1, the main loss with 1
    mon = _accumulated(divide_by=8, aux_weight=0.1)
    assert _weights(mon) == pytest.approx([1.0] * len(_weights(mon)))
    assert "LR_TOO_LOW" not in _problems(mon)


def test_a_loss_scaled_up_for_backward_is_no_small_weight():
    mon = _accumulated(divide_by=8, scale=1024.0)
    assert min(_weights(mon)) == pytest.approx(1024.0)
    assert not _problems(mon)


def test_a_validation_loss_in_the_window_is_not_counted():
    mon = _accumulated(divide_by=8, validate=True)
    assert _weights(mon) == pytest.approx([1.0] * len(_weights(mon)))
    assert not _problems(mon)


def test_a_slow_rate_without_a_divided_loss_keeps_the_old_verdict():
    mon = _accumulated(divide_by=8, lr=1e-5, steps=60)
    found = _found(mon, "LR_TOO_LOW")
    assert found and "loss_weight_per_step" not in found[0].evidence


# --- cost and bookkeeping -----------------------------------------------------------------

def test_only_the_first_recorded_steps_are_read_and_the_hooks_go():
    mon = _accumulated(divide_by=8, steps=40)
    weights = mon.around.loss_weights
    assert weights.steps_read == OBSERVED_STEPS and weights._handle is None
    assert _weights(mon)
    assert all(step < OBSERVED_STEPS for step, _ in mon.run.observed.loss_weights)


def test_no_optimizer_hook_is_left_behind():
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = len(opt._optimizer_step_post_hooks)
    with nd.watch(model, opt) as mon:
        for xb, yb in batches(x, y, 3):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            mon.step(loss)
    # the monitor's own every-step hooks go at close too
    assert len(opt._optimizer_step_post_hooks) == before


def test_saved_and_loaded_rows_read_back(tmp_path):
    import nndebug as nd
    mon = twice.run(steps=6)
    assert _weights(mon)
    path = tmp_path / "run.nddebug"
    mon.save(path)
    assert [list(r) for r in nd.load_run(path).run.observed.loss_weights] == \
        [list(r) for r in mon.run.observed.loss_weights]
