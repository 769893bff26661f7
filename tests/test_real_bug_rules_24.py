"""Real-bug batch 24 (contrastive, metric and multi-task set-ups): EMBEDDINGS_NORMALIZED_OVER_BATCH
(``rules/embedding_norms.py``, ``monitor/whole_batch_norms.py``), a batch of embeddings
divided by one norm of the whole batch (tensorflow/similarity#237), named on a SimCLR-style
run and silent where rows are normalised one by one, where a Gram matrix or a weight is
divided by its own norm (CKA, weight normalisation) and where a scalar relative error is."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.whole_batch_norms import whole_batch_divisions  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "EMBEDDINGS_NORMALIZED_OVER_BATCH"
TEMPERATURE = 0.1


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _batch(generator, n=64):
    """Two noisy views of n random 16-feature points (each point a cluster of its own)."""
    base = torch.randn(n, 16, generator=generator)
    return (base + 0.1 * torch.randn(n, 16, generator=generator),
            base + 0.1 * torch.randn(n, 16, generator=generator))


NORMALISE = {
    "batch": lambda z: z / z.norm(),                           # the bug
    "batch_rsqrt": lambda z: z * torch.rsqrt((z ** 2).sum()),  # the bug, by hand
    "rows": lambda z: F.normalize(z, dim=1),                   # the fix
    "rows_by_hand": lambda z: z / z.norm(dim=1, keepdim=True),
}


def _train_contrastive(normalise, steps=40):
    """NT-Xent over two views, each projection normalised by ``NORMALISE[normalise]``."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 16))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scale = NORMALISE[normalise]
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            a, b = _batch(generator)
            optimizer.zero_grad()
            z = torch.cat([scale(model(a)), scale(model(b))])
            n = len(a)
            logits = (z @ z.T / TEMPERATURE).masked_fill(torch.eye(2 * n, dtype=torch.bool),
                                                         float("-inf"))
            loss = F.cross_entropy(logits, torch.cat([torch.arange(n, 2 * n), torch.arange(n)]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("normalise", ["batch", "batch_rsqrt"])
def test_a_batch_divided_by_its_whole_norm_is_named(normalise):
    assert CODE in _codes(_train_contrastive(normalise))


@pytest.mark.parametrize("normalise", ["rows", "rows_by_hand"])
def test_rows_normalised_one_by_one_are_silent(normalise):
    assert not _codes(_train_contrastive(normalise))


class WeightNormalised(nn.Module):
    """A classifier whose last layer's weight matrix is scaled by its own Frobenius norm."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
        self.direction = nn.Parameter(torch.randn(4, 32) * 0.2)
        self.gain = nn.Parameter(torch.tensor(3.0))

    def forward(self, x):
        features = self.body(x)
        return features @ (self.gain * self.direction / self.direction.norm()).T, features


def _cka_penalty(features, reference):
    """1 - linear CKA between two feature batches: each Gram matrix over its own norm."""
    gram_a, gram_b = features @ features.T, reference @ reference.T
    return 1 - (gram_a / gram_a.norm() * (gram_b / gram_b.norm())).sum()


def test_weight_normalisation_and_a_cka_penalty_are_silent():
    """Two healthy divisions of a whole tensor by its own norm: a weight matrix (weight
    normalisation) and square Gram matrices (CKA), in a classifier that learns."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    centres = torch.randn(4, 16, generator=generator) * 2
    model = WeightNormalised()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(60):
            labels = torch.randint(0, 4, (64,), generator=generator)
            x = centres[labels] + torch.randn(64, 16, generator=generator)
            optimizer.zero_grad()
            logits, features = model(x)
            loss = F.cross_entropy(logits, labels) + 0.1 * _cka_penalty(features, x)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE not in _codes(mon)
    assert not mon.run.observed.whole_batch_norms


def test_a_relative_error_over_the_batch_is_silent():
    """||pred - y|| / ||y|| (operator learning's relative L2 loss) divides one value."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(2)
    weights = torch.randn(16, 8, generator=generator)
    model = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 8))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(60):
            x = torch.randn(64, 16, generator=generator)
            y = x @ weights
            optimizer.zero_grad()
            loss = (model(x) - y).norm() / y.norm()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _codes(mon)


@pytest.mark.parametrize("make, found", [
    (lambda z: z / torch.linalg.norm(z), True),
    (lambda z: z / (z.pow(2).sum().sqrt() + 1e-8), True),
    (lambda z: z / z.norm().clamp_min(1e-8), True),
    (lambda z: z / torch.linalg.matrix_norm(z), True),
    (lambda z: F.normalize(z, dim=-1), False),
    (lambda z: z / z.detach().norm(), False),          # a constant scale, not the norm's graph
    (lambda z: z / z[:1].norm(), False),               # another tensor's norm
    (lambda z: (lambda gram: gram / gram.norm())(z @ z.T), False),   # square: a Gram matrix
])
def test_the_graph_walk_tells_a_whole_batch_norm_apart(make, found):
    z = nn.Linear(6, 3)(torch.randn(5, 6))
    out = make(z)
    loss = out.pow(2).sum()
    loss.backward()
    assert bool(whole_batch_divisions(nodes_under([loss.grad_fn]))) == found
