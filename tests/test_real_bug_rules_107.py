"""Real-bug batch 107 (domain adaptation, adversarial feature alignment): a gradient
reversal layer written as an ``nn.Module`` with a ``backward(grad)`` method, which autograd
never calls (MODULE_BACKWARD_NEVER_CALLED, read at findings: ``monitor/module_backwards.py``).
Variants: a straight-through sign estimator written the same way in a small CNN under SGD,
a minigrad module with its own backward. Fixed twins silent, and the healthy look-alikes a
careless rule would flag: a module that applies a torch.autograd.Function, a module whose
forward routes its own backward through a tensor hook, a module whose ``backward`` takes no
gradient (a helper of another name's job), a module holding a Function class as an
attribute. The observer's rows on hand-made modules, and its rows read back from a run
file."""
import json
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import gradient_reversal_module_backward_never_called as grl_case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug import runfile  # noqa: E402
from nndebug.monitor.module_backwards import read_module_backwards  # noqa: E402
from nndebug.observed import Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "MODULE_BACKWARD_NEVER_CALLED"
STEPS = 60


def _codes(mon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- the planted case and its twin ---------------------------------------------------------

def test_the_reported_module_backward_is_named_and_its_twin_is_silent():
    assert CODE in _codes(grl_case.run(fixed=False, steps=STEPS))
    assert not _codes(grl_case.run(fixed=True, steps=STEPS))


# --- variants ------------------------------------------------------------------------------

class SignWithBackward(nn.Module):
    """A straight-through sign meant to pass the gradient clipped to |x| <= 1."""

    def forward(self, x):
        return x + (torch.sign(x) - x).detach()

    def backward(self, grad_output, saved_input=None):
        return grad_output * (saved_input.abs() <= 1)


class SignThroughFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * (x.abs() <= 1)


class SignModule(nn.Module):
    def forward(self, x):
        return SignThroughFunction.apply(x)


def _cnn_run(binarize):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), binarize,
                          nn.Flatten(), nn.Linear(8 * 64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, STEPS, seed=3):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_straight_through_module_with_its_own_backward_in_a_cnn_is_named():
    mon = _cnn_run(SignWithBackward())
    assert CODE in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == CODE)
    assert finding.where == "2" and finding.evidence["classes"] == ["SignWithBackward"]


def test_the_same_estimator_through_a_function_is_silent():
    assert CODE not in _codes(_cnn_run(SignModule()))


def test_a_minigrad_module_with_its_own_backward_is_named():
    import numpy as np

    import minigrad as mg
    import minigrad.nn.functional as MF
    from minigrad import nn as mnn

    class Reverse(mnn.Module):
        def forward(self, x):
            return x

        def backward(self, grad):
            return -grad

    x, y = classification()
    images, labels = x.numpy(), y.numpy()
    np.random.seed(0)
    model = mnn.Sequential(mnn.Linear(64, 32), mnn.ReLU(), Reverse(), mnn.Linear(32, 10))
    opt = mg.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, opt) as mon:
        for step in range(30):
            start = step * 48 % 1700
            xb, yb = mg.Tensor(images[start:start + 48]), mg.Tensor(labels[start:start + 48])
            opt.zero_grad()
            loss = MF.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            mon.step(loss)
    assert CODE in _codes(mon)


# --- healthy look-alikes -------------------------------------------------------------------

class HookedReversal(nn.Module):
    """Routes its own backward through a tensor hook: a working reversal layer."""

    def forward(self, x):
        x = x.clone()
        if x.requires_grad:
            x.register_hook(self.backward)
        return x

    def backward(self, grad):
        return -0.1 * grad


class HelperNamedBackward(nn.Module):
    """``backward`` is a helper without a gradient argument (not a gradient rule)."""

    def forward(self, x):
        return torch.relu(x)

    def backward(self):
        return "walks the layers in reverse order"


class HoldsAFunction(nn.Module):
    reverse = grl_case.ReverseGradient          # a Function class kept as an attribute

    def forward(self, x):
        return self.reverse.apply(x, 0.1)


@pytest.mark.parametrize("layer", [HookedReversal, HelperNamedBackward, HoldsAFunction])
def test_healthy_modules_are_not_flagged(layer):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), layer(), nn.Linear(32, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, STEPS, seed=1):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE not in {f.code for f in mon.findings()}


# --- the observer on hand-made modules, and its rows saved and read back --------------------

class _Adapter:
    def __init__(self, model):
        self.model = model

    def named_modules(self):
        return self.model.named_modules()


def test_the_observer_keeps_only_user_classes_with_a_dead_backward():
    model = nn.Sequential(nn.Linear(4, 4), grl_case.ModuleWithBackward(), HookedReversal(),
                          HelperNamedBackward(), HoldsAFunction(), nn.ReLU())
    observed, errors = Observed(), []
    read_module_backwards(_Adapter(model), observed, errors.append)
    assert not errors
    assert observed.module_backwards == [("1", "ModuleWithBackward")]


def test_a_subclass_inherits_the_dead_backward():
    class Scaled(grl_case.ModuleWithBackward):
        pass

    observed = Observed()
    read_module_backwards(_Adapter(nn.Sequential(Scaled())), observed, print)
    assert observed.module_backwards == [("0", "ModuleWithBackward")]


class _TrainerHookModule(nn.Module):
    """Stands for a LightningModule: its backward(loss) is a hook the Trainer calls."""

    def backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)


_TrainerHookModule.__module__ = "lightning.pytorch.core.module"


def test_a_training_frameworks_backward_hook_is_not_a_dead_backward():
    class LitClassifier(_TrainerHookModule):          # the user's module, hook inherited
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 2)

    class LitOverriding(LitClassifier):                # the user overrides the hook
        def backward(self, loss):
            loss.backward(retain_graph=True)

    observed, errors = Observed(), []
    read_module_backwards(_Adapter(nn.ModuleList([LitClassifier(), LitOverriding()])),
                          observed, errors.append)
    assert not errors
    assert observed.module_backwards == []


def test_module_backwards_keep_their_types_through_json():
    observed = Observed()
    observed.module_backwards = [("reversal", "GRL"), ("", "Model")]
    text = json.dumps(runfile._encode_observed(observed), allow_nan=False)
    back = runfile.decode_observed(json.loads(text))
    assert back.module_backwards == observed.module_backwards
