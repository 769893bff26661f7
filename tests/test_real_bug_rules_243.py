"""Real-bug batch 243 (beginner BERT fine-tuning): the loss of a model that computes it
inside its own forward - a Hugging Face head called with ``labels=`` builds
``CrossEntropyLoss()`` there and returns ``out.loss`` - is now read by the loss capture (its
logits and class ids), so the rules that read the targets see them: a training file
sorted by label and read in order is named BATCHES_OF_ONE_CLASS, where before
``run.observed.loss_calls`` stayed empty. The planted case is the benchmark's sentence-pair
one; the healthy twins (shuffled) stay without it. Torch only: the change is in the global
module hooks' handling of a loss module run inside the watched model's forward."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


class HeadWithLoss(nn.Module):
    """An MLP classifier called the Hugging Face way: ``model(x, labels=y)`` returns
    ``{"loss", "logits"}``, the loss from a CrossEntropyLoss built inside forward."""

    def __init__(self, inputs=64, classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(inputs, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x, labels=None):
        logits = self.body(x)
        loss = None if labels is None else nn.CrossEntropyLoss()(logits, labels)
        return {"loss": loss, "logits": logits}


def _digits_in_file_order(shuffled, steps=60, batch=32):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(y)) if shuffled else torch.argsort(y, stable=True)
    x, y = x[order], y[order]
    model = HeadWithLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = torch.arange(step * batch, (step + 1) * batch) % len(y)
            out = model(x[rows], labels=y[rows])
            optimizer.zero_grad()
            out["loss"].backward()
            optimizer.step()
            mon.step(out["loss"])
    return mon


def test_a_loss_computed_inside_forward_is_read():
    mon = _digits_in_file_order(shuffled=True)
    calls = mon.run.observed.loss_calls
    assert calls and calls[0].loss == "CrossEntropyLoss"
    assert calls[0].target_shape == (32,) and calls[0].output_shape == (32, 10)


def test_class_sorted_data_behind_an_inner_loss_is_named():
    assert "BATCHES_OF_ONE_CLASS" in _problems(_digits_in_file_order(shuffled=False))


def test_shuffled_data_behind_an_inner_loss_stays_silent():
    assert "BATCHES_OF_ONE_CLASS" not in _problems(_digits_in_file_order(shuffled=True))


def test_an_inner_functional_loss_is_not_read_twice():
    """F.cross_entropy inside forward was already seen by the function mode; the call kept
    is still the first one of the step."""
    class FunctionalHead(HeadWithLoss):
        def forward(self, x, labels=None):
            logits = self.body(x)
            return {"loss": F.cross_entropy(logits, labels), "logits": logits}

    torch.manual_seed(0)
    x, y = classification()
    model = FunctionalHead()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(6):
            rows = torch.arange(step * 32, (step + 1) * 32)
            out = model(x[rows], labels=y[rows])
            optimizer.zero_grad()
            out["loss"].backward()
            optimizer.step()
            mon.step(out["loss"])
    calls = mon.run.observed.loss_calls
    assert calls and len({c.step for c in calls}) == len(calls)


def test_the_planted_benchmark_case_and_its_twin():
    from benchmarks.real_bugs import bert_sentence_pairs_fed_positives_then_negatives as case
    assert "BATCHES_OF_ONE_CLASS" in _problems(case.run(fixed=False))
    assert "BATCHES_OF_ONE_CLASS" not in _problems(case.run(fixed=True))
