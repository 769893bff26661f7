"""Real-bug batch 120 (conditional layers: cGANs, conditional VAEs, class-conditional flow
models): a class embedding read at its last row, the null class of classifier-free
guidance, for most of its lookups (CONDITION_MOSTLY_NULL): the guidance dropout's mask
inverted, or the labels never handed to the network. The fixed twins stay silent, and so
do the look-alikes a careless rule would flag: a guidance dropout at its usual rate, a
categorical input whose last category is the majority (60%), a class table read evenly, a timestep table, a token table looked up with padded sequences
(padding at the last row), a 1-D table with a padding_idx at its last row, a two-row
segment table read at one row only."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    cfg_null_label_drawn_with_inverted_probability as inverted,
    diffusion_labels_passed_to_loss_but_not_model as unused)
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "CONDITION_MOSTLY_NULL"


def _found(mon):
    return [f for f in mon.findings() if f.code == CODE and f.severity in PROBLEMS]


@pytest.mark.parametrize("case", [inverted, unused])
def test_the_reports_are_named_and_their_twins_silent(case):
    found = _found(case.run(steps=60))
    assert found and found[0].evidence["null_share"] > 0.8
    assert not _found(case.run(fixed=True, steps=60))


class Tabled(nn.Module):
    """Digits plus one id per sample (or per position) looked up in ``table``."""

    def __init__(self, table):
        super().__init__()
        self.table = table
        self.net = nn.Sequential(nn.Linear(64 + table.embedding_dim, 32), nn.ReLU(),
                                 nn.Linear(32, 10))

    def forward(self, x, ids):
        looked = self.table(ids)
        if looked.dim() == 3:
            looked = looked.mean(1)
        return self.net(torch.cat([x, looked], 1))


def _train(table, ids_of, steps=12):
    torch.manual_seed(0)
    x, y = classification()
    model = Tabled(table)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb, ids_of(yb)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _null_with(p):
    def ids(labels):
        null = torch.rand(len(labels)) < p
        return torch.where(null, torch.full_like(labels, 10), labels)
    return ids


def test_most_labels_at_the_null_row_are_named():
    found = _found(_train(nn.Embedding(11, 8), _null_with(0.85)))
    assert found and 0.75 < found[0].evidence["null_share"] < 0.95


def test_a_categorical_input_whose_last_category_is_the_majority_is_silent():
    def skewed(labels):                   # a tabular field: "other" (the last id) on 60%
        other = torch.rand(len(labels)) < 0.6
        return torch.where(other, torch.full_like(labels, 5), labels % 5)
    assert not _found(_train(nn.Embedding(6, 8), skewed))


def test_a_guidance_dropout_at_its_usual_rate_is_silent():
    assert not _found(_train(nn.Embedding(11, 8), _null_with(0.2)))


def test_a_class_table_read_evenly_is_silent():
    assert not _found(_train(nn.Embedding(10, 8), lambda labels: labels))


def test_a_timestep_table_is_silent():
    assert not _found(_train(nn.Embedding(50, 8), lambda labels: torch.randint(0, 50,
                                                                               labels.shape)))


def test_padded_sequences_with_padding_at_the_last_row_are_silent():
    def sequences(labels):                # 2 real ids, then 14 pads (the last row, 20)
        ids = torch.full((len(labels), 16), 20)
        ids[:, 0], ids[:, 1] = labels, labels + 10
        return ids
    assert not _found(_train(nn.Embedding(21, 8), sequences))


def test_a_padding_row_at_the_end_of_a_one_id_table_is_silent():
    assert not _found(_train(nn.Embedding(11, 8, padding_idx=10), _null_with(0.9)))


def test_a_two_row_segment_table_at_one_row_is_silent():
    assert not _found(_train(nn.Embedding(2, 8), lambda labels: torch.ones_like(labels)))
