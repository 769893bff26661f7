"""Batch 111 (self-supervised reports): InfoNCE written as cross-entropy with the positive
in column 0 - every target 0, a row of 1 + K columns - is a healthy contrastive loss, not
labels built wrong (rules/contrastive_targets.py guards TARGETS_ALL_ONE_CLASS and
OUTPUT_WIDER_THAN_CLASSES). Planted: a MoCo-style queue and a SimCLR port with positives
first (silent), against constant labels on a wide and on a narrow classifier (named)."""
import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402
from torch.nn import functional as F  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
GUARDED = {"TARGETS_ALL_ONE_CLASS", "OUTPUT_WIDER_THAN_CLASSES"}


def _views(x, generator):
    return x + 0.3 * torch.randn(x.shape, generator=generator)


def _contrastive(step_loss, optimizer_kind="adam", steps=60, rows=32, seed=0):
    """An encoder trained on two noisy views of blob points with ``step_loss(q, k, state)``;
    the findings by code."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 16))
    optimizer = (torch.optim.Adam(model.parameters(), lr=1e-3) if optimizer_kind == "adam"
                 else torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    state = {}
    data = torch.cat([x for x, _ in blobs(steps)])
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            xb = data[torch.randint(0, len(data), (rows,), generator=generator)]
            optimizer.zero_grad()
            q = model(_views(xb, generator))
            k = model(_views(xb, generator))
            loss = step_loss(q, k, state)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def _moco(queue_size):
    def loss(q, k, state):
        q, k = F.normalize(q, dim=1), F.normalize(k.detach(), dim=1)
        queue = state.get("queue")
        if queue is None:
            queue = F.normalize(torch.randn(queue_size, q.shape[1]), dim=1)
        logits = torch.cat([(q * k).sum(1, keepdim=True), q @ queue.T], 1) / 0.2
        state["queue"] = torch.cat([k, queue])[:queue_size]
        return F.cross_entropy(logits, torch.zeros(len(q), dtype=torch.long))
    return loss


def _simclr_positive_first(q, k, state):
    """sthalles/SimCLR's layout: each row's positive moved to column 0, the 2N - 2
    negatives after it, labels all 0."""
    z = F.normalize(torch.cat([q, k]), dim=1)
    n = len(q)
    sim = z @ z.T
    rows = torch.arange(2 * n)
    positive = sim[rows, (rows + n) % (2 * n)][:, None]
    keep = ~torch.eye(2 * n, dtype=torch.bool)
    keep[rows, (rows + n) % (2 * n)] = False
    negatives = sim[keep].reshape(2 * n, -1)
    logits = torch.cat([positive, negatives], 1) / 0.5
    return F.cross_entropy(logits, torch.zeros(2 * n, dtype=torch.long))


@pytest.mark.parametrize("queue_size,optimizer_kind", [(256, "adam"), (128, "sgd")])
def test_moco_queue_infonce_is_not_constant_labels(queue_size, optimizer_kind):
    found = _contrastive(_moco(queue_size), optimizer_kind)
    assert not GUARDED & set(found), sorted(found)


def test_simclr_positives_first_is_not_constant_labels():
    found = _contrastive(_simclr_positive_first)
    assert not GUARDED & set(found), sorted(found)


def _classifier_run(classes, rows=32, steps=60):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), torch.zeros_like(yb))   # labels built wrong
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


@pytest.mark.parametrize("classes", [10, 100])
def test_constant_labels_on_a_classifier_are_still_named(classes):
    """A wide head (100 classes, wider than the batch) with every label 0 learns the
    constant class by its bias and the loss collapses: still named."""
    assert "TARGETS_ALL_ONE_CLASS" in _classifier_run(classes)
