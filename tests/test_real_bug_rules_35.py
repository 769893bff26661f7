"""Real-bug batch 35 (samples mixed across the batch): a hand-written squared error between a
(N, 1) output and (N,) targets, which broadcasts into an (N, N) table of every output minus
every target (LOSS_BROADCAST_OVER_BATCH); a hand-written binary cross-entropy does the same
through products. The fixed twin stays silent, and so do healthy
losses that make square tables on purpose or broadcast a column against a row of another
length: a pairwise ranking loss over the model's scores, a 1-D MMD with a Gaussian kernel
between generated and real samples, an energy distance, quantile regression ((N, Q)
outputs against (N, 1) targets), and a per-sample weighted error."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import handwritten_loss_broadcasts_over_batch as broadcast  # noqa: E402
from benchmarks.real_bugs._common import batches, regression  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.outer_differences import outer_differences  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "LOSS_BROADCAST_OVER_BATCH"
STEPS = 30


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(loss):
    return outer_differences(nodes_under([loss.grad_fn]))


def _batch(rows=16):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    return model, torch.randn(rows, 8), torch.randn(rows)


def test_the_planted_report_is_named():
    mon = broadcast.run(steps=STEPS)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].severity == "error"
    assert found[0].evidence["table_shape"] == [64, 64]
    assert found[0].evidence["output_shape"] == [64, 1]


def test_the_fixed_twin_is_silent():
    mon = broadcast.run(fixed=True, steps=STEPS)
    assert not _problems(mon)
    assert mon.run.observed.outer_differences == []


@pytest.mark.parametrize("error", [lambda out, y: ((out - y) ** 2).mean(),
                                   lambda out, y: (y - out).abs().mean(),
                                   lambda out, y: ((out - y) * (out - y)).sum()])
def test_every_way_round_of_the_broadcast_error_is_seen(error):
    model, x, y = _batch()
    found = _found(error(model(x), y))       # (out - y) * (out - y) holds two subtractions
    assert found and set(map(repr, found)) == {repr(([16, 16], [16, 1]))}
    assert _found(error(model(x).squeeze(1), y)) == []        # the shapes matched: nothing


def test_a_hand_written_binary_cross_entropy_is_seen():
    model, x, y = _batch()
    labels = (y > 0).float()

    def bce(p):
        return -(labels * torch.log(p) + (1 - labels) * torch.log(1 - p)).mean()
    found = _found(bce(torch.sigmoid(model(x))))
    assert found and set(map(repr, found)) == {repr(([16, 16], [16, 1]))}
    assert _found(bce(torch.sigmoid(model(x)).squeeze(1))) == []


def test_a_target_column_against_a_vector_output_is_seen():
    model, x, y = _batch()
    assert _found(((model(x).squeeze(1) - y.unsqueeze(1)) ** 2).mean()) == [([16, 16], [16])]


def test_pairwise_losses_on_purpose_are_left_alone():
    model, x, y = _batch()
    scores = model(x)                                          # (N, 1)
    # RankNet-style: every pair of the model's own scores, against a target pair table
    ranking = nn.functional.binary_cross_entropy_with_logits(
        scores - scores.t(), (y.unsqueeze(1) > y.unsqueeze(0)).float())
    assert _found(ranking) == []
    # 1-D MMD with a Gaussian kernel: generated minus real, squared, SCALED, then exp
    generated, real = scores, y
    kernel = torch.exp(-(generated - real) ** 2 / 2.0).mean()
    assert _found(kernel) == []
    # energy distance: |X - Y| over every pair, minus the model's own pairs
    energy = 2 * (generated - real).abs().mean() - (generated - generated.t()).abs().mean()
    assert _found(energy) == []
    # a kernel matrix of the model's scores against fixed anchors, fed to a matrix product
    anchors = torch.randn(16)
    features = torch.tanh(scores * anchors) @ torch.randn(16, 4)
    assert _found(features.pow(2).mean()) == []


def test_quantile_and_weighted_errors_are_left_alone():
    torch.manual_seed(0)
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    quantiles = nn.Linear(8, 3)(x)                             # (N, 3) against (N, 1)
    assert _found(((quantiles - y) ** 2).mean()) == []
    model, x, y = _batch()
    weights = torch.rand(16)
    weighted = (weights * (model(x).squeeze(1) - y) ** 2).mean()
    assert _found(weighted) == []


def test_a_watched_quantile_regression_is_silent():
    """(N, 3) quantile outputs against (N, 1) targets broadcast along the quantiles on
    purpose, through the pinball loss: no finding."""
    torch.manual_seed(0)
    x, y = regression()
    levels = torch.tensor([0.1, 0.5, 0.9])
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, STEPS):
            optimizer.zero_grad()
            error = yb.unsqueeze(1) - model(xb)                # (N, 3)
            loss = torch.maximum(levels * error, (levels - 1) * error).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE not in {f.code for f in mon.findings()}
    assert mon.run.observed.outer_differences == []
