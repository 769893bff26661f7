"""Real-bug batch 268 (train/validation splitting): VALIDATION_LARGER_THAN_TRAINING
(``rules/split_sizes.py``, from ``observed.split_sizes``) names a split ratio read the wrong
way round - the model validates on several times the rows it trains on - on the batch's two
cases and on planted loops, and stays silent on their twins, on a usual 80/20 split, on an
even split, on a training set that the kept rows never came round (too large to be counted),
and on a validation set re-scored every epoch (each pass adds no new row).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import split_ratio_read_as_training_share as ratio_case  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    validation_count_computed_from_training_fraction as count_case)
from benchmarks.real_bugs._common import classification  # noqa: E402
from nndebug.monitor.validation_rows import split_sizes  # noqa: E402
from nndebug.rules.split_sizes import inverted_split  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "VALIDATION_LARGER_THAN_TRAINING"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _split_fit(train_share, steps=240, batch_size=32, validate_every=20):
    """A digits MLP trained on the first ``train_share`` of 1500 shuffled digits and
    validated on the rest (in eval mode, under no_grad) every ``validate_every`` steps."""
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))[:1500]
    x, y = x[order], y[order]
    n_train = int(len(x) * train_share)
    train_x, train_y, valid_x, valid_y = x[:n_train], y[:n_train], x[n_train:], y[n_train:]
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.as_tensor(rng.choice(n_train, batch_size, replace=False))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(train_x[index]), train_y[index])
            loss.backward()
            optimizer.step()
            val = None
            if step % validate_every == validate_every - 1:
                model.eval()
                with torch.no_grad():
                    val = float(F.cross_entropy(model(valid_x), valid_y))
                model.train()
            mon.step(loss, val_loss=val)
    return mon


def test_the_batch_cases_are_named_and_their_twins_are_silent():
    for case in (ratio_case, count_case):
        found = [f for f in case.run().findings() if f.code == CODE]
        assert found and found[0].severity == "warning"
        assert found[0].evidence["ratio_at_least"] >= 3
        assert CODE not in _codes(case.run(fixed=True))


def test_a_held_out_share_read_as_the_training_share_is_named():
    mon = _split_fit(train_share=0.1)              # test_size=0.9 where 0.1 was meant
    found = [f for f in mon.findings() if f.code == CODE]
    assert found
    assert found[0].evidence["distinct_training_rows"] == 150
    assert found[0].evidence["held_out_rows_at_least"] >= 900


@pytest.mark.parametrize("train_share", [0.8, 0.5])
def test_usual_and_even_splits_are_silent(train_share):
    assert CODE not in _codes(_split_fit(train_share))


def test_counts_follow_the_rows():
    train = np.repeat(np.arange(40 * 8, dtype=float).reshape(40, 8), 3, axis=0)
    held = np.arange(1000, 1000 + 200 * 8, dtype=float).reshape(200, 8)
    # a second pass over the same validation rows, and a training-accuracy pass, add nothing
    assert split_sizes(train, [held[:100], held[100:], held, train[:50]]) == \
        [(40, 120, 200, 450)]


def test_the_rule_judges_only_a_training_set_it_came_round():
    assert inverted_split([(150, 2048, 1024, 1024)]) == (150, 1024)
    assert inverted_split([(1500, 2048, 1024, 1024)]) is None   # kept rows never came round
    assert inverted_split([(150, 2048, 300, 1024)]) is None     # 2x: not inverted
    assert inverted_split([(20, 2048, 90, 1024)]) is None       # too few held-out rows
    assert inverted_split([]) is None and inverted_split(None) is None
