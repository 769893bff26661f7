"""Real-bug batch 273 (beginner categorical embeddings and mixed tabular inputs): a
categorical column whose embedding is given ONE id for every example of every first
training lookup - its values all failed the lookup (a vocabulary built from the CSV's
" Male" looked up with "Male": every value the out-of-vocabulary index) - is named
UNKNOWN_ID_DOMINATES_INPUTS. The planted case is the benchmark's (keras-team/keras-io#1946);
stay silent of its fixed twin, of a column with one dominant real category (90%), of a
two-row flag table all zeros (BERT's segment ids), of an id shared by the whole batch but
drawn anew each step (a diffusion time step), and of a constant column in one batch only.
Both frameworks: the lookups are read by forward hooks through the adapter."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import category_vocabulary_kept_leading_spaces_every_lookup_oov as oov  # noqa: E402,E501
from nndebug.observed import Observed  # noqa: E402
from nndebug.rules.unknown_ids import unknown_id_dominates_inputs  # noqa: E402
from nndebug.runfile import ROW_READERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "UNKNOWN_ID_DOMINATES_INPUTS"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _columns(kind, step, rng, batch=64):
    """(category ids (batch,), flag ids (batch,)) of one batch, as ``kind`` draws them."""
    flags = np.zeros(batch, dtype=np.int64)
    if kind == "all_unknown":
        return np.zeros(batch, dtype=np.int64), flags
    if kind == "dominant":           # 90% one real category, the rest spread over 11
        ids = np.where(rng.random(batch) < 0.9, 3, rng.integers(0, 12, batch))
        return ids.astype(np.int64), flags
    if kind == "per_step":           # one id for the whole batch, drawn anew each step
        return np.full(batch, step % 12, dtype=np.int64), flags
    if kind == "one_batch":          # a constant column in the first batch only
        ids = np.full(batch, 5) if step == 0 else rng.integers(0, 12, batch)
        return ids.astype(np.int64), flags
    return rng.integers(0, 12, batch).astype(np.int64), flags          # "healthy"


class TorchTable(nn.Module):
    def __init__(self):
        super().__init__()
        self.category = nn.Embedding(12, 4)
        self.flag = nn.Embedding(2, 2)
        self.head = nn.Linear(4 + 2 + 1, 1)

    def forward(self, ids, flags, x):
        return self.head(torch.cat([self.category(ids), self.flag(flags), x], 1)).squeeze(-1)


class MinigradTable(mnn.Module):
    def __init__(self):
        super().__init__()
        self.category = mnn.Embedding(12, 4)
        self.flag = mnn.Embedding(2, 2)
        self.head = mnn.Linear(4 + 2 + 1, 1)

    def forward(self, ids, flags, x):
        return self.head(mg.cat([self.category(ids), self.flag(flags), x], 1)).squeeze(-1)


def _train_torch(kind):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = TorchTable()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(STEPS):
            ids, flags = _columns(kind, step, rng)
            x = torch.from_numpy(rng.normal(size=(64, 1)).astype(np.float32))
            y = (x[:, 0] > 0).float()
            optimizer.zero_grad()
            loss = nn.functional.binary_cross_entropy_with_logits(
                model(torch.from_numpy(ids), torch.from_numpy(flags), x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _train_minigrad(kind):
    mg.manual_seed(0)
    rng = np.random.default_rng(0)
    model = MinigradTable()
    optimizer = mg.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = mnn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer) as mon:
        for step in range(STEPS):
            ids, flags = _columns(kind, step, rng)
            x = rng.normal(size=(64, 1)).astype(np.float32)
            loss = loss_fn(model(mg.tensor(ids), mg.tensor(flags), mg.tensor(x)),
                           mg.tensor((x[:, 0] > 0).astype(np.float32)))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_planted_case_is_named():
    mon = oov.run(steps=60)
    assert CODE in _problems(mon)
    found = [f for f in mon.findings() if f.code == CODE]
    assert {f.where for f in found} == {"embeddings.0", "embeddings.1", "embeddings.2"}
    assert all(f.evidence["id"] == 0 and f.evidence["share"] == 1.0 for f in found)


def test_fixed_twin_is_silent():
    assert CODE not in _problems(oov.run(fixed=True, steps=60))


@pytest.mark.parametrize("train", [_train_torch, _train_minigrad], ids=["torch", "minigrad"])
def test_all_unknown_column_named(train):
    mon = train("all_unknown")
    found = [f for f in mon.findings() if f.code == CODE]
    assert [f.where for f in found] == ["category"], [f.where for f in found]
    assert found[0].evidence["table_rows"] == 12


@pytest.mark.parametrize("kind", ["healthy", "dominant", "per_step", "one_batch"])
@pytest.mark.parametrize("train", [_train_torch, _train_minigrad], ids=["torch", "minigrad"])
def test_healthy_columns_silent(train, kind):
    assert CODE not in _problems(train(kind))


def _rule(rows):
    observed = Observed()
    observed.category_id_shares.extend(rows)

    class Run:
        pass
    run = Run()
    run.observed = observed

    class Ctx:
        pass
    ctx = Ctx()
    ctx.run = run
    return unknown_id_dominates_inputs(ctx)


def test_rule_reads_rows():
    one = [(0, "emb", 7, 1.0, 64, 20), (1, "emb", 7, 1.0, 64, 20)]
    assert [f.evidence["id"] for f in _rule(one)] == [7]
    assert _rule(one[:1]) is None                                   # one lookup only
    assert _rule([one[0], (1, "emb", 8, 1.0, 64, 20)]) is None      # two different ids
    assert _rule([one[0], (1, "emb", 7, 0.97, 64, 20)]) is None     # not every row
    assert ROW_READERS["category_id_shares"](["3", "emb", "7", "1.0", "64", "20"]) == \
        (3, "emb", 7, 1.0, 64, 20)
