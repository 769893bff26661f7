"""Real-bug batch 29 (loss functions misused): a loss whose target must be +1 or -1 given
0/1 labels (SIGNED_TARGETS_AS_ZERO_ONE). The planted case is the benchmark's cosine
embedding one; healthy pair and ranking losses with real +1/-1 targets, or with one sign
only, stay silent."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import cosine_embedding_targets_zero_one as cosine_zero_one  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.records import RunRecord  # noqa: E402
from nndebug.rules import diagnose  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _hinge(labels_as, steps=12):
    """A digit's embedding norm as the distance of HingeEmbeddingLoss: "is it a zero?"."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(outputs=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.HingeEmbeddingLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            label = (yb == 0).float()
            loss = loss_fn(model(xb).norm(dim=1), labels_as(label))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _ranking(target_sign, steps=12):
    """The true label's score ranked against a wrong label's, a constant target sign."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MarginRankingLoss(margin=1.0)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            scores = model(xb)
            true = scores.gather(1, yb[:, None]).squeeze(1)
            wrong = scores.gather(1, ((yb + 1) % 10)[:, None]).squeeze(1)
            first, second = (true, wrong) if target_sign > 0 else (wrong, true)
            loss = loss_fn(first, second, torch.full_like(true, float(target_sign)))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_cosine_loss_given_zero_one_pair_labels_is_named():
    mon = cosine_zero_one.run(steps=20)
    assert "SIGNED_TARGETS_AS_ZERO_ONE" in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == "SIGNED_TARGETS_AS_ZERO_ONE")
    assert finding.where == "CosineEmbeddingLoss" and finding.evidence["minus_ones"] == 0


def test_cosine_loss_given_signed_pair_labels_is_silent():
    assert "SIGNED_TARGETS_AS_ZERO_ONE" not in _problems(cosine_zero_one.run(fixed=True,
                                                                             steps=20))


def test_hinge_loss_given_zero_one_labels_is_named_and_signed_labels_are_not():
    assert "SIGNED_TARGETS_AS_ZERO_ONE" in _problems(_hinge(lambda label: label))
    assert not _problems(_hinge(lambda label: 2 * label - 1))


@pytest.mark.parametrize("sign", [1, -1])
def test_ranking_loss_with_one_sign_throughout_is_silent(sign):
    # pairs ordered so the first (or the second) always wins: a constant target of +1 or of
    # -1 is legitimate, and has no zeros
    assert "SIGNED_TARGETS_AS_ZERO_ONE" not in _problems(_ranking(sign))


def test_the_rule_needs_zeros_next_to_ones_and_no_minus_one():
    def verdict(rows):
        return {f.code for f in diagnose(RunRecord(observed=Observed(signed_targets=rows)))}
    name = "CosineEmbeddingLoss"
    zero_one = [(0, name, 64, 30, 0, 34), (1, name, 64, 33, 0, 31)]
    assert "SIGNED_TARGETS_AS_ZERO_ONE" in verdict(zero_one)
    signed = [(0, name, 64, 30, 34, 0), (1, name, 64, 33, 31, 0)]
    assert "SIGNED_TARGETS_AS_ZERO_ONE" not in verdict(signed)
    all_positive = [(0, name, 64, 64, 0, 0), (1, name, 64, 64, 0, 0)]
    assert "SIGNED_TARGETS_AS_ZERO_ONE" not in verdict(all_positive)
    assert "SIGNED_TARGETS_AS_ZERO_ONE" not in verdict(zero_one[:1])   # one call: no verdict
