"""Real-bug batch 72 (multi-task, multi-head and multi-input models): a label loss computed
and never added to a weighted total (LOSSES_NOT_BACKPROPAGATED, widened: the stepped loss's
graph holds no loss function and no log-likelihood while a classification loss is called
on the training output, ``monitor/trained_loss_nodes.py``), and an uncertainty weight sigma
trained itself so that ``log(sigma)`` turns the loss NaN on every step once sigma crosses
zero (LOG_OF_UNBOUNDED_OUTPUT, widened: the NaN re-made by a log from finite numbers on
each recorded step after the first, the weights finite). The fixed twins stay silent, and
so do the look-alikes a careless rule would flag: a hand-written cross-entropy trained with
F.cross_entropy logged beside it, a classifier with an output penalty, an autoencoder
beside a logged cross-entropy metric, a metric under no_grad, a learned positive
temperature under a log, and a NaN born of a blow-up (the weights NaN too)."""
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    label_loss_gated_on_image_loss_weight as gated,
    second_modality_branch_overwritten_by_first as dual,
    uncertainty_weight_logged_without_positivity as uncertainty)
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(loss_of, steps=40, lr=0.1, model=None):
    """A digits MLP trained on ``loss_of(logits, labels)`` (SGD, momentum 0.9)."""
    torch.manual_seed(0)
    x, y = classification()
    model = model or mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_of(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- LOSSES_NOT_BACKPROPAGATED: the label term never added --------------------------------

def test_a_label_loss_gated_on_the_image_weight_is_named():
    found = [f for f in gated.run(steps=60).findings()
             if f.code == "LOSSES_NOT_BACKPROPAGATED" and f.severity in PROBLEMS]
    assert found and found[0].evidence["loss_calls"] == ["cross_entropy"]


def test_the_fixed_weighted_sum_is_silent():
    assert "LOSSES_NOT_BACKPROPAGATED" not in _problems(gated.run(fixed=True, steps=60))


def test_an_nll_assigned_where_it_was_to_be_added_is_named():
    def loss_of(logits, labels):
        loss = 0.1 * logits.abs().mean()               # an output penalty
        label_loss = F.nll_loss(F.log_softmax(logits, 1), labels)
        total = loss
        total_label = label_loss                         # computed, never summed in
        del total_label
        return total
    assert "LOSSES_NOT_BACKPROPAGATED" in _problems(_train(loss_of))


def test_a_hand_written_cross_entropy_with_a_logged_one_is_silent():
    def loss_of(logits, labels):
        F.cross_entropy(logits, labels)                  # logged, with gradients on
        return -F.log_softmax(logits, 1).gather(1, labels[:, None]).mean()
    assert "LOSSES_NOT_BACKPROPAGATED" not in _problems(_train(loss_of))


def test_a_classifier_with_an_output_penalty_is_silent():
    def loss_of(logits, labels):
        return F.cross_entropy(logits, labels) + 0.01 * logits.pow(2).mean()
    assert "LOSSES_NOT_BACKPROPAGATED" not in _problems(_train(loss_of))


def test_an_autoencoder_with_a_logged_cross_entropy_is_silent():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 40):
            optimizer.zero_grad()
            out = model(xb)
            F.cross_entropy(out[:, :10], yb)             # a probe-like metric on the output
            loss = F.mse_loss(out, xb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LOSSES_NOT_BACKPROPAGATED" not in _problems(mon)


def test_a_metric_under_no_grad_beside_a_squared_error_is_not_this():
    def loss_of(logits, labels):
        with torch.no_grad():
            F.cross_entropy(logits, labels)
        return F.mse_loss(logits, F.one_hot(labels, 10).float())
    assert "LOSSES_NOT_BACKPROPAGATED" not in _problems(_train(loss_of))


# --- LOG_OF_UNBOUNDED_OUTPUT: log of a learned sigma that crossed zero ---------------------

def test_an_uncertainty_weight_trained_itself_is_named():
    found = [f for f in uncertainty.run().findings()
             if f.code == "LOG_OF_UNBOUNDED_OUTPUT" and f.severity in PROBLEMS]
    assert found and found[0].evidence["operation"] == "log"
    assert found[0].step > 50


def test_the_log_variance_twin_is_silent():
    problems = _problems(uncertainty.run(fixed=True))
    assert "LOG_OF_UNBOUNDED_OUTPUT" not in problems and "NAN_LOSS" not in problems


class _Weighted(nn.Module):
    """A digits MLP with two more, easy heads ('is it a zero', 'is it a one') and three
    learned uncertainty weights."""
    tasks = (0, 1)

    def __init__(self, positive):
        super().__init__()
        self.body, self.head = mlp(64, 64, 64), nn.Linear(64, 10)
        self.easy = nn.ModuleList([nn.Linear(64, 2) for _ in self.tasks])
        self.positive = positive
        self.sigma = nn.Parameter(torch.ones(1 + len(self.tasks)))

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(h), [easy(h) for easy in self.easy]

    def weigh(self, losses):
        sigma = F.softplus(self.sigma) if self.positive else self.sigma
        return (torch.stack(losses) / (2 * sigma ** 2) + torch.log(sigma)).sum()


def _weighted(positive, steps=300):
    torch.manual_seed(0)
    x, y = classification()
    model = _Weighted(positive)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            digits, easy = model(xb)
            losses = [F.cross_entropy(digits, yb)] + [
                F.cross_entropy(out, (yb == task).long()) for out, task in zip(easy, model.tasks)]
            loss = model.weigh(losses)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_three_tasks_whose_easy_sigma_crosses_zero_are_named():
    mon = _weighted(positive=False)
    assert any(not math.isfinite(v) for v in mon.run.losses)     # sigma crossed zero (~126)
    assert "LOG_OF_UNBOUNDED_OUTPUT" in _problems(mon)


def test_a_softplus_sigma_under_the_log_is_silent():
    problems = _problems(_weighted(positive=True))
    assert "LOG_OF_UNBOUNDED_OUTPUT" not in problems and "NAN_LOSS" not in problems


def test_a_nan_of_a_blow_up_is_not_taken_for_a_log_of_a_learned_value():
    def loss_of(logits, labels):   # a hand-written cross-entropy (a log) at a huge rate
        return -torch.log(F.softmax(logits, 1).gather(1, labels[:, None])).mean()
    mon = _train(loss_of, steps=60, lr=50.0)
    assert "LOG_OF_UNBOUNDED_OUTPUT" not in _problems(mon)


# --- the dual encoder (detected as it came), saved rows ------------------------------------

def test_the_overwritten_second_branch_is_named_and_its_twin_silent():
    assert "NO_GRADIENT" in _problems(dual.run(steps=40))
    assert "NO_GRADIENT" not in _problems(dual.run(fixed=True, steps=40))


def test_saved_and_loaded_rows_read_back(tmp_path):
    path = tmp_path / "run.nddebug"
    mon = gated.run(steps=8)
    mon.save(path)
    saved = mon.run.observed.trained_loss_nodes
    loaded = nd.load_run(path).run.observed.trained_loss_nodes
    assert saved and [list(r) for r in loaded] == [list(r) for r in saved]
    assert "LOSSES_NOT_BACKPROPAGATED" in {f.code for f in nd.load_run(path).findings()}


def test_the_walk_reads_three_steps_only():
    mon = gated.run(steps=200)
    assert len(mon.run.observed.trained_loss_nodes) == 3
