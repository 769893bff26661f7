"""overfit_one_batch: healthy models memorise a batch, broken ones fail with findings that say
why; the user's model, modes and RNG are never changed."""
import math

import numpy as np
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def digits(n=16):
    from minigrad.data import load_digits
    x, y = load_digits()
    return x[:n].astype(np.float32), y[:n]


def torch_mlp(seed=0, hidden=32, out=10, last=None):
    torch.manual_seed(seed)
    layers = [torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, out)]
    if last is not None:
        layers.append(last)
    return torch.nn.Sequential(*layers)


def codes(res):
    return [f.code for f in res.findings]


# --- healthy models pass ------------------------------------------------------------------

def test_torch_classifier_memorises_the_batch_and_is_left_untouched():
    x, y = digits()
    model = torch_mlp()
    model[2].bias.requires_grad_(False)                        # a frozen tensor stays frozen
    model.eval()
    torch.manual_seed(7)
    expected_next = torch.rand(2)
    torch.manual_seed(7)
    adapter = nd.adapt(model)
    state = adapter.capture_state()
    res = nd.overfit_one_batch(model, torch.tensor(x), torch.tensor(y), torch.nn.CrossEntropyLoss())
    assert res.passed, str(res)
    assert res.accuracy == 1.0 and res.final_loss < 0.02 * res.initial_loss
    assert len(res.losses) == 200 and res.findings == []
    assert res.initial_loss == pytest.approx(res.losses[0])
    assert adapter.state_differences(state) == []              # values, grads, flags, modes, hooks
    assert torch.equal(torch.rand(2), expected_next)            # RNG untouched


def test_minigrad_classifier_and_numpy_inputs():
    x, y = digits()
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(64, 32), mnn.ReLU(), mnn.Linear(32, 10))
    state = nd.adapt(model).capture_state()
    res = nd.overfit_one_batch(model, x, y, mnn.CrossEntropyLoss())
    assert res.passed and res.accuracy == 1.0, str(res)
    assert nd.adapt(model).state_differences(state) == []


def test_regression_has_no_accuracy_and_passes_on_loss_alone():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(16, 5)).astype(np.float32), rng.normal(size=(16, 1)).astype(np.float32)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
    res = nd.overfit_one_batch(model, x, y, torch.nn.MSELoss())
    assert res.passed and res.accuracy is None and res.final_loss < 0.02 * res.initial_loss


MODES = []


class ModeSpy(torch.nn.Module):
    """Records the train flags its batch-norm and dropout have at each forward."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.BatchNorm1d(32)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        MODES.append((self.norm.training, self.drop.training))
        return self.drop(self.norm(x))


def test_dropout_is_off_and_batchnorm_stays_in_training_mode():
    x, y = digits()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), ModeSpy(), torch.nn.ReLU(),
                                torch.nn.Linear(32, 10))
    model.eval()                                   # the user's model is in eval mode
    MODES.clear()
    res = nd.overfit_one_batch(model, x, y, torch.nn.CrossEntropyLoss(), steps=100)
    assert res.passed, str(res)
    assert MODES and set(MODES) == {(True, False)}  # batch-norm trains, dropout is off
    assert not model.training and not model[1].norm.training and not model[1].drop.training
    assert any("dropout" in n for n in res.notes)


def test_batch_size_takes_the_first_samples_only():
    x, y = digits(64)
    res = nd.overfit_one_batch(torch_mlp(), x, y, torch.nn.CrossEntropyLoss(), batch_size=8, steps=50)
    assert res.passed


# --- broken models fail, with the reason attached ------------------------------------------------

def test_dead_relus_fail_and_the_monitor_names_them():
    x, y = digits()
    model = torch_mlp()
    with torch.no_grad():
        model[0].bias.fill_(-100.0)
    res = nd.overfit_one_batch(model, x, y, torch.nn.CrossEntropyLoss())
    assert not res.passed and res.accuracy < 1.0
    assert "OVERFIT_FAILED" in codes(res)
    dead = [f for f in res.findings if f.code == "DEAD_RELU"]
    assert dead and dead[0].where == "1"
    assert len(res.attempts) == 2                         # a second learning rate was tried
    assert any("gradients agree" in n for n in res.notes)  # the backward is not to blame


def test_double_softmax_fails_and_is_named():
    x, y = digits()
    res = nd.overfit_one_batch(torch_mlp(last=torch.nn.Softmax(dim=1)), x, y,
                               torch.nn.CrossEntropyLoss())
    assert not res.passed
    assert "DOUBLE_SOFTMAX" in codes(res), str(res)


class FlippedSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return -2 * g * x                     # the sign is wrong


class Square(torch.nn.Module):
    def forward(self, x):
        return FlippedSquare.apply(x)


def test_wrong_custom_backward_fails_with_backward_mismatch_located():
    x, y = digits()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 16), Square(), torch.nn.Linear(16, 10))
    res = nd.overfit_one_batch(model, x, y, torch.nn.CrossEntropyLoss())
    assert not res.passed, str(res)
    mismatches = [f for f in res.findings if f.code == "BACKWARD_MISMATCH"]
    assert mismatches and mismatches[0].where == "1", str(res)


def test_planted_minigrad_bug_fails_with_the_primitive_named():
    x, y = digits()
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(64, 16), mnn.ReLU(), mnn.Linear(16, 10))
    with mg.bugs.plant("matmul_weight_grad_transposed"):
        res = nd.overfit_one_batch(model, x, y, mnn.CrossEntropyLoss())
    assert not res.passed, str(res)
    located = [f for f in res.findings if f.code == "BACKWARD_MISMATCH" and f.evidence.get("op")]
    assert located and located[0].evidence["op"] == "matmul", str(res)


def test_nan_from_the_first_step_is_a_failure_not_a_crash():
    class Broken(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(64, 10)

        def forward(self, x):
            return self.fc(x) / 0.0 * 0.0          # NaN everywhere

    x, y = digits()
    res = nd.overfit_one_batch(Broken(), x, y, torch.nn.CrossEntropyLoss(), steps=20)
    assert not res.passed and "NaN" in res.reason and math.isnan(res.final_loss)


def test_loss_floor_for_losses_whose_minimum_is_not_zero():
    x, y = digits()
    smoothing = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    assert not nd.overfit_one_batch(torch_mlp(), x, y, smoothing, diagnose=False).passed
    q = np.full(10, 0.01)
    q[0] = 0.91                                   # the smoothed target distribution
    floor = float(-(q * np.log(q)).sum())         # its entropy: the lowest reachable loss
    assert nd.overfit_one_batch(torch_mlp(), x, y, smoothing, loss_floor=floor).passed


def test_an_explicit_lr_is_the_only_one_tried():
    x, y = digits()
    res = nd.overfit_one_batch(torch_mlp(), x, y, torch.nn.CrossEntropyLoss(), lr=1e-6, steps=20,
                               diagnose=False)
    assert not res.passed and [a["lr"] for a in res.attempts] == [1e-6] and res.lr == 1e-6


def test_bad_inputs_get_clear_errors():
    x, y = digits()
    model, loss = torch_mlp(), torch.nn.CrossEntropyLoss()
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        nd.overfit_one_batch(model, x, y, loss, steps=0)
    with pytest.raises(ValueError, match="inputs hold 16 samples but targets hold 8"):
        nd.overfit_one_batch(model, x, y[:8], loss)
    with pytest.raises(TypeError, match="loss_fn must be callable"):
        nd.overfit_one_batch(model, x, y, "cross-entropy")
    with pytest.raises(ValueError, match="lr must be a positive number"):
        nd.overfit_one_batch(model, x, y, loss, lr=-1)
    frozen = torch_mlp()
    frozen.requires_grad_(False)
    with pytest.raises(ValueError, match="no trainable parameters"):
        nd.overfit_one_batch(frozen, x, y, loss)
    with pytest.raises(TypeError, match="torch.nn.Module and minigrad.nn.Module"):
        nd.overfit_one_batch(lambda v: v, x, y, loss)
