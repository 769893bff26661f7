"""MASK_USED_AS_INDEX read from the index itself, anywhere in the loss's computation
(real-bug batch 351: a batch-hard triplet loss taking each anchor's negatives as
``dist[i][1 - mask[i]]``, open-reid#24; ``monitor/mask_indexes.py``). An integer index as
long as the dimension it indexes and holding only 0s and 1s is a mask read as positions.
Planted: the benchmark's case at both seed settings, the slip by ``t[idx]``, ``gather`` and
``index_select``. Healthy: the twin (a boolean mask), positions that are not only 0s and
1s, an index shorter than its dimension, a two-entry dimension."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402
from benchmarks.real_bugs import reid_hard_negative_mask_subtracted_into_indices as reid  # noqa: E402
from nndebug.monitor.mask_indexes import _mask_as_positions  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "MASK_USED_AS_INDEX"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.mark.parametrize("shift", [0, 1000])
def test_the_triplet_loss_reading_its_negatives_through_1_minus_mask_is_named(shift):
    with shifted_seeds(shift):
        assert CODE in _codes(reid.run(steps=20))


def test_the_triplet_loss_with_a_boolean_mask_is_silent():
    assert CODE not in _codes(reid.run(fixed=True, steps=20))


def _train(select, steps=12):
    """A regressor whose loss keeps the entries a 0/1 mask marks, picked by ``select``."""
    torch.manual_seed(0)
    model = nn.Linear(16, 32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            x, y = torch.randn(64, 16), torch.randn(64, 32)
            mask = torch.rand(32) < 0.5
            error = (model(x) - y) ** 2
            loss = select(error, mask).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("select", [
    lambda e, m: e[:, 1 - m.long()],
    lambda e, m: e.index_select(1, m.long()),
    lambda e, m: e.gather(1, m.long().expand(64, 32)),
], ids=["getitem", "index_select", "gather"])
def test_a_0_1_mask_read_as_positions_is_named(select):
    assert CODE in _codes(_train(select))


@pytest.mark.parametrize("select", [
    lambda e, m: e[:, m],                                   # a boolean mask selects
    lambda e, m: e[:, torch.randperm(32)],                  # positions of every value
    lambda e, m: e[:, m.nonzero().squeeze(1)],              # the kept positions
    lambda e, m: e.masked_fill(~m, 0.0),
], ids=["bool", "permutation", "nonzero", "masked_fill"])
def test_masks_used_as_masks_are_silent(select):
    assert CODE not in _codes(_train(select))


def test_the_reading_of_single_calls():
    t = torch.randn(4, 16)
    bits = torch.tensor([0, 1] * 8)
    assert _mask_as_positions("__getitem__", (t, (slice(None), bits)), {}) == 16
    assert _mask_as_positions("__getitem__", (t, (slice(None), bits[:8])), {}) is None   # shorter
    assert _mask_as_positions("__getitem__", (t, (slice(None), bits.bool())), {}) is None
    assert _mask_as_positions("__getitem__", (torch.randn(4, 2), (slice(None), bits[:2])),
                              {}) is None                                   # two entries
    assert _mask_as_positions("gather", (t, 1, bits.expand(4, 16)), {}) == 16
    assert _mask_as_positions("gather", (t, 1, torch.arange(16).expand(4, 16)), {}) is None
    assert _mask_as_positions("index_select", (t, 1, bits), {}) == 16
