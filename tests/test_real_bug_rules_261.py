"""Real-bug batch 261 (beginner class-imbalanced classification): RARE_POSITIVES_NEVER_PREDICTED
(``rules/rare_positives.py``) read when the positives are too rare to fill every batch and the
loss is an element-wise call the script weighs and averages by hand.

Named on its planted cases (mathiaszinnen/focal_loss_torch#2: a focal loss's alpha on the
positives only; aigamedev/scikit-neuralnetwork#238: the balancing sample weights dropped),
silent on their fixed twins, and silent on healthy set-ups that look alike: the same rare
positives weighted through ``reduction="none"`` (they are predicted), a balanced task with an
element-wise loss, and a run too short to judge. Both frameworks (the rule reads the
recorded loss calls only).
"""
import pytest

torch = pytest.importorskip("torch")
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import focal_negatives_not_weighted_by_one_minus_alpha as focal  # noqa: E402,E501
from benchmarks.real_bugs import sample_weights_dropped_when_validation_split_is_set as dropped  # noqa: E402,E501
from benchmarks.real_bugs._common import binary, index_batches, mlp  # noqa: E402
from benchmarks.real_bugs._imb186 import rare_binary  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
RARE = "RARE_POSITIVES_NEVER_PREDICTED"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_focal_alpha_on_positives_only_is_named_and_its_fixed_twin_is_silent():
    assert RARE in _codes(focal.run())
    assert RARE not in _codes(focal.run(fixed=True))


def test_dropped_sample_weights_are_named_and_the_kept_ones_are_silent():
    assert RARE in _codes(dropped.run())
    assert RARE not in _codes(dropped.run(fixed=True))


def _elementwise_run(x, y, weighted, steps=300):
    """Adam on an MLP with one logit, BCE with reduction="none" averaged by hand, the rows
    weighted by inverse class frequency or not."""
    torch.manual_seed(0)
    share = float(y.mean())
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for index in index_batches(len(x), steps, 64, seed=0):
            per_row = F.binary_cross_entropy_with_logits(
                model(x[index]).squeeze(-1), y[index], reduction="none")
            if weighted:
                per_row = per_row * torch.where(y[index] == 1, 0.5 / share, 0.5 / (1 - share))
            loss = per_row.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_rare_positives_weighted_through_an_elementwise_loss_are_silent():
    x, y, _, _ = rare_binary(seed=0)
    assert RARE in _codes(_elementwise_run(x, y, weighted=False))
    assert RARE not in _codes(_elementwise_run(x, y, weighted=True))


def test_a_balanced_task_with_an_elementwise_loss_is_silent():
    assert RARE not in _codes(_elementwise_run(*binary(), weighted=False))


def test_a_short_run_is_not_judged():
    x, y, _, _ = rare_binary(seed=0)
    assert RARE not in _codes(_elementwise_run(x, y, weighted=False, steps=40))


def test_rare_positives_in_minigrad():
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim

    x, y, _, _ = rare_binary(seed=0)
    x, y = x.numpy(), y.numpy()
    share = float(y.mean())
    found = {}
    for weighted in (False, True):
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(64, 64), mnn.ReLU(), mnn.Linear(64, 1))
        optimizer = moptim.Adam(model.parameters(), lr=1e-3)
        loss_fn = mnn.BCEWithLogitsLoss(reduction="none")
        with nd.watch(model, optimizer) as mon:
            for index in index_batches(len(x), 300, 64, seed=0):
                rows = index.numpy()
                per_row = loss_fn(model(mg.tensor(x[rows])).reshape(-1), mg.tensor(y[rows]))
                if weighted:
                    per_row = per_row * mg.tensor(
                        (y[rows] * (0.5 / share - 0.5 / (1 - share)) + 0.5 / (1 - share))
                        .astype("float32"))
                loss = per_row.mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
        found[weighted] = _codes(mon)
    assert RARE in found[False]
    assert RARE not in found[True]
