"""Two observations of watch's and the rules that read them (issue #10):

- LOSS_TERM_WITHOUT_GRADIENT: an addend of the loss's top-level sum without a graph
  (``monitor/loss_terms.py``, ``run.observed.loss_terms``, ``rules/loss_terms.py``);
- DROPOUT_IGNORES_EVAL: a dropout function call in ``forward`` whose ``training`` argument
  is missing or True (``monitor/functional_dropout.py``, ``rules/functional_dropout.py``).

Each is tested on planted runs and on the healthy twins that must stay silent, in torch and
(for the loss terms) minigrad, and saved and loaded with the run."""
import warnings

import numpy as np
import pytest

import nndebug as nd
from nndebug.monitor.functional_dropout import calls_in_forward, read_functional_dropouts
from nndebug.observed import FunctionalDropout, LossTerm, Observed
from nndebug.rules.loss_terms import SIZABLE_SHARE, penalty_without_gradient
from nndebug.runfile import _encode_observed, decode_observed

torch = pytest.importorskip("torch")
F = torch.nn.functional

from benchmarks.real_bugs._common import classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STEPS = 40


def codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def train_torch(loss_of, model=None, steps=STEPS, val_loss_of=None):
    """The digits MLP trained with ``loss = loss_of(scores, targets)`` under nd.watch."""
    torch.manual_seed(0)
    model = model or torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                         torch.nn.Linear(64, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = classification()
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, opt) as mon:
            for _ in range(steps):
                rows = torch.as_tensor(rng.choice(len(x), 64, replace=False))
                opt.zero_grad()
                loss = loss_of(model(x[rows]), y[rows])
                loss.backward()
                opt.step()
                val = None
                if val_loss_of is not None:
                    with torch.no_grad():
                        val = val_loss_of(model(x[:64]), y[:64])
                mon.step(loss, val_loss=val)
    return mon


# --- LOSS_TERM_WITHOUT_GRADIENT, torch --------------------------------------------------------
def disagreement(scores, targets):
    """A penalty through argmax and .item(): the share of misclassified samples."""
    return torch.tensor((scores.argmax(1) != targets).float().mean().item())


PLANTED_TERMS = {
    "argmax then .item()": lambda s, t: F.cross_entropy(s, t) + disagreement(s, t),
    "weighted and subtracted": lambda s, t: F.cross_entropy(s, t) - 0.5 * disagreement(s, t),
    "from NumPy": lambda s, t: F.cross_entropy(s, t) + torch.as_tensor(
        np.float32((s.detach().numpy().argmax(1) != t.numpy()).mean())),
    "under no_grad": lambda s, t: F.cross_entropy(s, t) + _no_grad_entropy(s),
    "inside a scaled sum": lambda s, t: (F.cross_entropy(s, t) + disagreement(s, t)) / 2,
}


def _no_grad_entropy(scores):
    with torch.no_grad():
        p = scores.softmax(1)
        return -(p * p.log()).sum(1).mean()


@pytest.mark.parametrize("loss_of", PLANTED_TERMS.values(), ids=PLANTED_TERMS)
def test_a_term_without_gradient_is_named(loss_of):
    mon = train_torch(loss_of)
    found = next(f for f in mon.findings() if f.code == "LOSS_TERM_WITHOUT_GRADIENT")
    assert found.severity == "warning"
    assert min(found.evidence["shares"]) > 0 and len(found.evidence["steps"]) >= 3
    terms = mon.run.observed.loss_terms
    assert terms and all(t.share is not None and t.made_by for t in terms)


def test_the_measured_value_is_the_terms_value():
    """The loss is ce + 0.25 + share: the recorded term is what was added, with its sign and
    the scale it was added under."""
    added = []

    def loss_of(scores, targets):
        term = disagreement(scores, targets)
        added.append(float(term))
        return 2.0 * (F.cross_entropy(scores, targets) - term)

    mon = train_torch(loss_of, steps=10)
    terms = mon.run.observed.loss_terms
    assert terms
    for term in terms:
        assert term.value == pytest.approx(-2.0 * added[term.step], rel=1e-6)


HEALTHY_TERMS = {
    "plain cross-entropy": lambda s, t: F.cross_entropy(s, t),
    "loss + 0": lambda s, t: F.cross_entropy(s, t) + 0,
    "a constant offset": lambda s, t: F.cross_entropy(s, t) + torch.tensor(1.5),
    "a sum started at zeros": lambda s, t: torch.zeros(()) + F.cross_entropy(s, t),
    "Python's sum": lambda s, t: sum([F.cross_entropy(s, t), F.cross_entropy(s, t)]),
    "L2 regularisation": None,                       # built in the test: needs the model
    "KL with its entropy inside the op": lambda s, t: F.kl_div(
        s.log_softmax(1), F.one_hot(t, 10).float() * 0.9 + 0.01, reduction="batchmean"),
    "label smoothing": lambda s, t: F.cross_entropy(s, t, label_smoothing=0.1),
}


def _prior_spread(scores):
    """A term of fresh random draws only, different every step: the part of a debiased
    divergence that compares the prior with itself (real-bug batch 206)."""
    prior = torch.randn(len(scores), 4)
    return -0.5 * torch.cdist(prior, prior).mean()


DATA_ONLY_TERMS = {
    "a term of prior samples only": lambda s, t: F.cross_entropy(s, t) + _prior_spread(s),
    "of noise drawn per step": lambda s, t: F.cross_entropy(s, t) + (
        torch.rand(16).std() * torch.rand(()) + torch.rand(())),
}


@pytest.mark.parametrize("loss_of", DATA_ONLY_TERMS.values(), ids=DATA_ONLY_TERMS)
def test_a_term_computed_from_data_alone_is_left_out(loss_of):
    """Such a term never had a gradient to lose: the monitor sees it made from data, with
    no tensor of the model's and no trip through the host (LossTerm.data_only). (A term
    built from a batch that came through torch.as_tensor counts as through the host: the
    monitor cannot tell a NumPy batch from a model output sent round NumPy, and says what
    it said before.)"""
    mon = train_torch(loss_of)
    terms = mon.run.observed.loss_terms
    assert terms and all(t.data_only for t in terms if t.value is not None)
    assert "LOSS_TERM_WITHOUT_GRADIENT" not in codes(mon)


def test_a_term_of_the_model_through_numpy_is_not_data_only():
    """The same shape of term computed from the model's output through NumPy, and from a
    detached copy of it, is named: the graph was cut."""
    through_numpy = train_torch(lambda s, t: F.cross_entropy(s, t) + torch.tensor(
        float(np.abs(s.detach().numpy()).mean())))
    detached = train_torch(lambda s, t: F.cross_entropy(s, t) + s.detach().abs().mean())
    for mon in (through_numpy, detached):
        assert not any(t.data_only for t in mon.run.observed.loss_terms)
        assert "LOSS_TERM_WITHOUT_GRADIENT" in codes(mon)


@pytest.mark.parametrize("name", HEALTHY_TERMS)
def test_healthy_losses_with_constants_stay_silent(name):
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 10))
    loss_of = HEALTHY_TERMS[name] or (lambda s, t: F.cross_entropy(s, t) + 1e-3 * sum(
        (p ** 2).sum() for p in model.parameters()))
    mon = train_torch(loss_of, model=model)
    assert "LOSS_TERM_WITHOUT_GRADIENT" not in {f.code for f in mon.findings()}


def test_a_loss_computed_under_no_grad_for_logging_is_not_a_training_loss():
    mon = train_torch(lambda s, t: F.cross_entropy(s, t),
                      val_loss_of=lambda s, t: F.cross_entropy(s, t) + disagreement(s, t))
    assert not mon.run.observed.loss_terms
    assert "LOSS_TERM_WITHOUT_GRADIENT" not in codes(mon)


def test_the_constants_mode_is_off_after_each_step():
    """The mode goes on only after a step showed a constant addend, and never stays on."""
    from torch._C import _len_torch_function_stack
    healthy = train_torch(lambda s, t: F.cross_entropy(s, t), steps=5)
    assert healthy.around.graph.value_steps == 0      # no constant: never switched on
    planted = train_torch(PLANTED_TERMS["argmax then .item()"], steps=5)
    assert planted.around.graph.value_steps > 0
    assert _len_torch_function_stack() == 0


# --- LOSS_TERM_WITHOUT_GRADIENT, minigrad ------------------------------------------------------
def train_minigrad(penalty, steps=STEPS):
    import minigrad as mg
    import minigrad.nn as mnn
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(64, 64), mnn.ReLU(), mnn.Linear(64, 10))
    opt = mg.optim.Adam(model.parameters(), lr=1e-3)
    x, y = classification()
    x, y = x.numpy(), y.numpy()
    loss_fn = mnn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    with nd.watch(model, opt) as mon:
        for _ in range(steps):
            rows = rng.choice(len(x), 64, replace=False)
            opt.zero_grad()
            scores = model(mg.tensor(x[rows]))
            loss = penalty(loss_fn(scores, mg.tensor(y[rows])), scores.data, y[rows])
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def test_minigrad_term_without_gradient_is_named_and_its_offset_twin_is_not():
    import minigrad as mg
    planted = train_minigrad(lambda loss, scores, y: loss + mg.tensor(
        np.float32((scores.argmax(1) != y).mean())))
    assert "LOSS_TERM_WITHOUT_GRADIENT" in codes(planted)
    offset = train_minigrad(lambda loss, scores, y: loss + 0)
    assert "LOSS_TERM_WITHOUT_GRADIENT" not in {f.code for f in offset.findings()}


# --- the rule on hand-made terms ----------------------------------------------------------------
def terms(values, loss=2.0):
    return [LossTerm(step=i, value=v, share=abs(v) / loss, made_by="AddBackward0")
            for i, v in enumerate(values)]


def test_the_rule_wants_a_sizable_changing_share_on_most_steps():
    assert penalty_without_gradient(terms([0.3, 0.2, 0.25, 0.1]))
    assert not penalty_without_gradient(terms([0.3, 0.3, 0.3, 0.3]))     # a fixed offset
    small = 0.5 * SIZABLE_SHARE * 2.0
    assert not penalty_without_gradient(terms([small, small / 2, small / 3]))
    assert not penalty_without_gradient(terms([0.3, 0.2]))                 # too few steps
    assert not penalty_without_gradient(terms([0.3, 0.0, 0.0, 0.0]))       # mostly zero
    assert not penalty_without_gradient([LossTerm(step=0, value=None, share=None)] * 5)


# --- DROPOUT_IGNORES_EVAL ------------------------------------------------------------------------
class MissingTraining(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(64, 64), torch.nn.Linear(64, 10)

    def forward(self, x):
        return self.b(F.dropout(torch.relu(self.a(x)), 0.2))


class LiteralTrue(MissingTraining):
    def forward(self, x):
        h = torch.nn.functional.alpha_dropout(torch.relu(self.a(x)), p=0.1, training=True)
        return self.b(h)


class PositionalTrue(MissingTraining):
    def forward(self, x):
        return self.b(F.dropout(torch.relu(self.a(x)), 0.2, True))


class FollowsTraining(MissingTraining):
    def forward(self, x):
        return self.b(F.dropout(torch.relu(self.a(x)), 0.2, training=self.training))


class FollowsTrainingPositional(MissingTraining):
    def forward(self, x):
        return self.b(F.dropout(torch.relu(self.a(x)), 0.2, self.training))


class GuardedByTraining(MissingTraining):
    def forward(self, x):
        h = torch.relu(self.a(x))
        if self.training:
            h = F.dropout(h, 0.2)
        return self.b(h)


class DropoutLayer(MissingTraining):
    def __init__(self):
        super().__init__()
        self.dropout = torch.nn.Dropout(0.2)

    def forward(self, x):
        return self.b(self.dropout(torch.relu(self.a(x))))


@pytest.mark.parametrize("model_class", [MissingTraining, LiteralTrue, PositionalTrue],
                         ids=lambda c: c.__name__)
def test_a_dropout_call_that_ignores_eval_is_named(model_class):
    mon = train_torch(lambda s, t: F.cross_entropy(s, t), model=model_class(), steps=3)
    found = next(f for f in mon.findings() if f.code == "DROPOUT_IGNORES_EVAL")
    assert found.severity == "warning" and found.where == model_class.__name__
    call = found.evidence["calls"][0]
    assert call["file"].endswith(".py") and "dropout" in call["call"]
    with open(call["file"]) as source:
        assert "dropout" in source.readlines()[call["line"] - 1]   # the line is the call's


@pytest.mark.parametrize("model_class", [FollowsTraining, FollowsTrainingPositional,
                                         GuardedByTraining, DropoutLayer],
                         ids=lambda c: c.__name__)
def test_dropout_that_follows_eval_stays_silent(model_class):
    mon = train_torch(lambda s, t: F.cross_entropy(s, t), model=model_class(), steps=3)
    assert not mon.run.observed.functional_dropouts
    assert "DROPOUT_IGNORES_EVAL" not in {f.code for f in mon.findings()}


def test_a_class_without_source_gives_nothing():
    """A class built by exec (as in a notebook whose source inspect cannot find)."""
    scope = {"torch": torch, "F": F}
    exec("class Cell(torch.nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.a = torch.nn.Linear(64, 10)\n"
         "    def forward(self, x):\n"
         "        return F.dropout(self.a(x), 0.5)\n", scope)
    observed = Observed()
    errors = []
    read_functional_dropouts(nd.adapters.adapt(scope["Cell"]()), observed, errors.append)
    assert observed.functional_dropouts == [] and errors == []


def test_each_forward_is_parsed_once():
    first = calls_in_forward(MissingTraining.forward, "MissingTraining")
    assert first and calls_in_forward(MissingTraining.forward, "MissingTraining") is first


def test_minigrad_functional_dropout_is_named():
    import minigrad.nn as mnn
    import minigrad.nn.functional as MF

    class Net(mnn.Module):
        def __init__(self):
            super().__init__()
            self.a = mnn.Linear(64, 10)

        def forward(self, x):
            return MF.dropout(self.a(x), 0.3)

    observed = Observed()
    read_functional_dropouts(nd.adapters.adapt(Net()), observed)
    assert [d.module_type for d in observed.functional_dropouts] == ["Net"]
    healthy = Observed()          # minigrad's own Dropout layer calls F.dropout: library code
    read_functional_dropouts(nd.adapters.adapt(mnn.Sequential(mnn.Linear(4, 4),
                                                              mnn.Dropout(0.5))), healthy)
    assert healthy.functional_dropouts == []


# --- saved with the run ---------------------------------------------------------------------------
def test_both_observations_survive_a_round_trip():
    observed = Observed()
    observed.loss_terms.append(LossTerm(step=3, value=0.25, share=0.1, made_by="AddBackward0"))
    observed.functional_dropouts.append(FunctionalDropout("Net", "net.py", 12, "F.dropout(x)"))
    back = decode_observed(_encode_observed(observed))
    assert back.loss_terms == observed.loss_terms
    assert back.functional_dropouts == observed.functional_dropouts
    assert decode_observed({}).loss_terms == []      # a file written before they were kept
