"""Real-bug batch 86 (meta-learning and few-shot learning): an evaluation or adaptation pass
that fine-tunes the model being trained in place - a new ``SGD(model.parameters())`` stepped
on each validation episode's support set, not on a copy - named WEIGHTS_REWRITTEN_OUTSIDE_
OPTIMIZER (bursts of other optimizers' steps on the watched weights, on a minority of the
steps, after which the loss stands higher); PARAMS_IN_TWO_OPTIMIZERS, whose message is a
two-network loop's, defers to it. Variants: one fine-tuning optimizer reused for every
episode, Adam fine-tuning, a CNN, a validation pass every 40 steps. Silent: the fixed twin
(fine-tuning a deep copy), and the healthy look-alikes a careless rule would flag - a
deliberate refit of the classifier head on training batches by a second optimizer every 25
steps (the loss does not rise after it), and a second optimizer on every step (a GAN's wrong
optimizer: PARAMS_IN_TWO_OPTIMIZERS keeps it). The other cases of the batch are detected as
they came (NO_GRADIENT, TARGETS_ALL_ONE_CLASS) and stay so; where the forward pass runs on
copies of the model's weights (a deepcopy adapted through ``.data``, detached copies as the
inner loop's start), UNREGISTERED_PARAMETERS now says so - leaf tensors shaped like each of
the model's own parameters - instead of asking for layers built in ``__init__`` (a layer
built in ``forward`` keeps that message). First-order MAML without ``create_graph`` is a
known miss (tests/test_real_bugs.py)."""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.func import functional_call  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import maml_validation_finetunes_meta_learner_in_place as inplace  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.rules import rewritten_weights  # noqa: E402
from nndebug.rules.context import curve_summary  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _maml(steps=160, every=25, reuse=False, finetune="sgd", images=False, in_place=True,
          seed=0):
    """MAML (one differentiable inner step) on 5-way digit episodes with a validation pass
    every ``every`` steps that fine-tunes either the model itself or a copy."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x, y = classification(images=images)
    if images:
        model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                              nn.Linear(8 * 64, 64), nn.ReLU(), nn.Linear(64, 5))
    else:
        model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    shared = None
    with nd.watch(model, optimizer) as mon:
        for step in range(1, steps + 1):
            optimizer.zero_grad()
            loss = sum(inplace.query_loss(model, *inplace.episode(x, y, rng))
                       for _ in range(4)) / 4
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % every:
                continue
            for _ in range(8):
                xs, ys, _, _ = inplace.episode(x, y, rng)
                learner = model if in_place else copy.deepcopy(model)
                if reuse and shared is None:
                    shared = torch.optim.SGD(learner.parameters(), lr=0.1)
                inner = shared if reuse else (
                    torch.optim.Adam(learner.parameters(), lr=0.01) if finetune == "adam"
                    else torch.optim.SGD(learner.parameters(), lr=0.1))
                for _ in range(10):
                    inner.zero_grad()
                    nn.functional.cross_entropy(learner(xs), ys).backward()
                    inner.step()
    return mon


# --- the planted case and its twin ---------------------------------------------------

def test_validation_fine_tuning_the_meta_learner_in_place_is_named():
    mon = inplace.run()
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["finetune_bursts"]
    assert found[0].evidence["steps"][:3] == [25, 50, 75]
    assert "PARAMS_IN_TWO_OPTIMIZERS" not in _problems(mon)      # deferred to the cause


def test_the_fixed_twin_fine_tuning_a_copy_is_silent():
    assert not _problems(inplace.run(fixed=True))


# --- variants --------------------------------------------------------------------------

@pytest.mark.parametrize("variant", [dict(reuse=True), dict(finetune="adam"),
                                     dict(images=True), dict(every=40, steps=200)],
                         ids=["one-reused-sgd", "adam-fine-tuning", "cnn", "every-40"])
def test_in_place_fine_tuning_variants_are_named(variant):
    assert CODE in _problems(_maml(**variant))


def test_the_same_loop_fine_tuning_copies_is_silent():
    assert not _problems(_maml(in_place=False))


# --- healthy look-alikes ---------------------------------------------------------------

def test_a_deliberate_head_refit_by_a_second_optimizer_is_silent():
    """Every 25 steps a second optimizer refits the classifier head on training batches,
    in place, on purpose: the weights move outside the watched optimizer in bursts, but the
    loss does not stand higher after them."""
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    refit = batches(x, y, 10_000, seed=1)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, 200), 1):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % 25 == 0:
                head = torch.optim.SGD(model[2].parameters(), lr=0.05)
                for _ in range(5):
                    xr, yr = next(refit)
                    head.zero_grad()
                    nn.functional.cross_entropy(model(xr), yr).backward()
                    head.step()
    assert CODE not in _problems(mon)
    assert mon.run.observed.shared_optimizers        # the bursts were seen, and judged healthy


def test_a_second_optimizer_on_every_step_stays_params_in_two_optimizers():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    other = torch.optim.SGD(model.parameters(), lr=0.05)      # meant for another network
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 120):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            other.step()
            mon.step(loss)
    problems = _problems(mon)
    assert "PARAMS_IN_TWO_OPTIMIZERS" in problems and CODE not in problems


# --- the rule on hand-made rows --------------------------------------------------------

class _Run:
    def __init__(self, losses, shared):
        self.observed = Observed()
        self.observed.shared_optimizers = shared
        self._losses = np.asarray(losses, float)

    def loss_array(self):
        return np.arange(len(self._losses)), self._losses


class _Ctx:
    """The parts of ``rules.context.Context`` the burst rule reads (its finite curve and the
    curve's summary)."""

    def __init__(self, run):
        self.run = run
        self.curve_steps, self.curve = run.loss_array()
        self.summary = curve_summary(self.curve)


def _curve(jumps, n=200, rise=0.3, seed=0):
    rng = np.random.default_rng(seed)
    losses = 2.0 - np.linspace(0, 1, n) + rng.normal(0, 0.05, n)
    for s in jumps:
        losses[s:s + 8] += rise * np.exp(-np.arange(min(8, n - s)) / 3)
    return losses


def test_bursts_followed_by_a_rise_are_named_and_without_a_rise_are_not():
    steps = [25, 50, 75, 100, 125, 150]
    rows = [(s, ["SGD", "SGD"], 4) for s in steps]
    assert rewritten_weights.finetuned_in_place(_Ctx(_Run(_curve(steps), rows))) is not None
    flat = _curve([], rise=0.0)
    assert rewritten_weights.finetuned_in_place(_Ctx(_Run(flat, rows))) is None


def test_dense_sharing_or_one_burst_is_left_to_the_other_rules():
    dense = [(s, ["SGD", "Adam"], 4) for s in range(20, 36)]
    assert rewritten_weights.finetuned_in_place(_Ctx(_Run(_curve(range(20, 36)), dense))) is None
    one = [(50, ["SGD", "SGD"], 4)]
    assert rewritten_weights.finetuned_in_place(_Ctx(_Run(_curve([50]), one))) is None
    assert rewritten_weights.finetuned_in_place(_Ctx(_Run([], []))) is None


# --- UNREGISTERED_PARAMETERS: copies of the weights run the forward pass ----------------

@pytest.mark.parametrize("case_name", ["maml_inner_step_writes_param_data",
                                       "maml_inner_loop_on_copied_initial_weights"])
def test_copies_of_the_weights_in_the_forward_pass_are_named_as_copies(case_name):
    import importlib
    case = importlib.import_module(f"benchmarks.real_bugs.{case_name}")
    findings = case.run(steps=40).findings()
    copies = [f for f in findings if f.code == "UNREGISTERED_PARAMETERS"]
    assert copies and copies[0].evidence.get("mirrors_model_parameters")
    assert "NO_GRADIENT" in {f.code for f in findings}
    assert not _problems(case.run(fixed=True, steps=40))


def test_a_layer_built_in_forward_keeps_the_unregistered_message():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = nn.Linear(64, 32)

        def forward(self, x):
            return nn.Linear(32, 10)(torch.relu(self.first(x)))     # built anew each call

    torch.manual_seed(0)
    x, y = classification()
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 60):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    found = [f for f in mon.findings() if f.code == "UNREGISTERED_PARAMETERS"]
    assert found and not found[0].evidence.get("mirrors_model_parameters")
