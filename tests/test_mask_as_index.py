"""MASK_USED_AS_INDEX (real-bug batch 160): a 0/1 mask stored as integers indexes rows 0 and 1
instead of selecting rows, so the loss reads two rows repeated. Both batch-160 cases were
missed as they came (TARGET_IDS_OFFSET at seed 0, nothing at seeds + 1000); the planted
full-batch and mini-batch versions are named, and the look-alikes stay silent: the same
mask as booleans, a data set that really holds two samples, a collapsed network whose
scores are one row. On a binary output the rows cannot tell; the index itself does."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import neighbor_sampler_seeds_given_as_integer_mask as sampler  # noqa: E402
from benchmarks.real_bugs import node_mask_zero_one_tensor_used_as_index as node_mask  # noqa: E402
from benchmarks.real_bugs._common import classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


@pytest.mark.parametrize("case", [node_mask, sampler], ids=["node_mask", "sampler"])
def test_the_batch_160_cases_are_named_and_their_twins_are_not(case):
    assert "MASK_USED_AS_INDEX" in _codes(case.run())
    assert "MASK_USED_AS_INDEX" not in _codes(case.run(fixed=True))


def _full_batch(mask, *, classes=10, samples=None, steps=60, model=None):
    """Full-batch training on the digits, the loss's rows picked as ``out[mask]``."""
    torch.manual_seed(0)
    x, y = classification()
    if samples is not None:                       # a data set of ``samples`` rows only
        x, y = x[:samples].repeat(len(x) // samples, 1), y[:samples].repeat(len(y) // samples)
    y = y % classes
    model = model or mlp(outputs=classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            out = model(x)
            loss = nn.functional.cross_entropy(out[mask(len(x))], y[mask(len(x))])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _zero_one(n):
    mask = torch.zeros(n, dtype=torch.long)
    mask[: n // 2] = 1                            # the first half selected, as split files do
    return mask


def test_an_integer_mask_is_named_with_the_rows_it_gathers():
    mon = _full_batch(_zero_one)
    found = [f for f in mon.findings() if f.code == "MASK_USED_AS_INDEX"]
    assert found and found[0].step == 0
    assert set(found[0].evidence["distinct_loss_rows"]) == {1}    # the mask starts with 1s
    assert min(found[0].evidence["distinct_model_rows"]) >= 16


def test_the_same_mask_as_booleans_is_silent():
    assert "MASK_USED_AS_INDEX" not in _codes(_full_batch(lambda n: _zero_one(n).bool()))


def test_a_data_set_of_two_samples_is_not_taken_for_a_mask():
    mon = _full_batch(lambda n: torch.ones(n, dtype=torch.bool), samples=2)
    assert "MASK_USED_AS_INDEX" not in _codes(mon)


def test_a_binary_output_is_named_by_its_index_not_by_its_rows():
    """Two class scores that saturate look like two rows, so the rows are not read on a
    binary output; the index itself is (batch 351, ``mask_read_as_positions``): an integer
    0/1 mask as long as the rows it indexes."""
    found = [f for f in _full_batch(_zero_one, classes=2).findings()
             if f.code == "MASK_USED_AS_INDEX"]
    assert found and found[0].evidence["operation"] == "__getitem__"
    assert "distinct_loss_rows" not in found[0].evidence
    bools = _full_batch(lambda n: _zero_one(n).bool(), classes=2)
    assert "MASK_USED_AS_INDEX" not in _codes(bools)


def test_a_collapsed_network_scores_one_row_and_is_not_taken_for_a_mask():
    dead = mlp()
    with torch.no_grad():
        dead[0].bias.fill_(-100.0)                # every hidden unit off: the output is a bias
    mon = _full_batch(lambda n: torch.ones(n, dtype=torch.bool), model=dead)
    assert "MASK_USED_AS_INDEX" not in _codes(mon)
