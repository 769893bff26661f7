"""DATA_ORDER_REPEATS and the DDP rules on plain records (no process group needed here;
tests/test_ddp.py runs real 2-rank gloo training)."""
import types

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nndebug.rank_records import RankRecord
from nndebug.rules.data_order import data_order_repeats, repeat_period
from nndebug.rules.distributed import (ddp_buffers_differ, ddp_replicas_diverged,
                                       ddp_same_data_on_ranks)


def _ctx(**run):
    return types.SimpleNamespace(run=types.SimpleNamespace(**run))


@settings(max_examples=60, deadline=None)
@given(period=st.integers(2, 40), epochs=st.floats(2.0, 5.0), seed=st.integers(0, 10_000))
def test_a_sequence_that_repeats_is_found_with_its_period(period, epochs, seed):
    epoch = np.random.default_rng(seed).normal(size=period)
    sequence = np.tile(epoch, 6)[:int(period * epochs)]
    assert repeat_period(sequence) == period


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 300), seed=st.integers(0, 10_000))
def test_reshuffled_batches_never_repeat(n, seed):
    assert repeat_period(np.random.default_rng(seed).normal(size=n)) is None


def test_full_batch_training_and_a_partial_second_epoch_are_not_repeats():
    assert repeat_period(np.ones(50)) is None                  # every batch the same: full batch
    epoch = np.arange(10.0)
    assert repeat_period(np.concatenate([epoch, epoch[:9]])) is None   # epoch 2 not complete
    assert repeat_period(np.concatenate([epoch, epoch])) == 10
    # one batch differs in the second epoch (e.g. augmentation): not a repeat
    second = epoch.copy()
    second[3] += 0.5
    assert repeat_period(np.concatenate([epoch, second])) is None


def test_data_order_finding_is_info_alone_and_a_warning_under_ddp():
    seq = list(np.tile(np.arange(7.0), 3))
    alone = data_order_repeats(_ctx(fingerprints=seq, ranks=None))
    assert alone.code == "DATA_ORDER_REPEATS" and alone.severity == "info"
    assert alone.evidence["batches_per_epoch"] == 7
    ddp = data_order_repeats(_ctx(fingerprints=seq, ranks=RankRecord(rank=1, world_size=2)))
    assert ddp.severity == "warning" and "set_epoch" in ddp.fix
    assert data_order_repeats(_ctx(fingerprints=list(np.random.default_rng(0).normal(size=40)),
                                   ranks=None)) is None


def _rows(fingerprints, params, buffers, levels=None):
    world = len(fingerprints)
    levels = np.zeros((world, 1)) if levels is None else np.asarray(levels, float)
    return np.column_stack([fingerprints, np.asarray(params, float), np.asarray(buffers, float),
                            levels])


def test_rank_record_finds_the_first_diverging_parameter_and_the_ranks():
    record = RankRecord(rank=0, world_size=3)
    names, buffers = ["fc1.weight", "fc2.weight"], ["bn.running_mean"]
    record.add_exchange(0, _rows([1.0, 2.0, 3.0], [[5, 6]] * 3, [[1]] * 3), names, buffers, ["X"])
    assert record.params is None and record.buffers is None
    record.add_exchange(4, _rows([1.0, 2.0, 3.0], [[5, 6], [5, 6], [5, 6.001]], [[1], [1.5], [1]]),
                        names, buffers, ["X"])
    assert record.params.name == "fc2.weight" and record.params.ranks == [2]
    assert record.params.step == 4 and record.buffers.ranks == [1]
    finding = ddp_replicas_diverged(_ctx(ranks=record))
    assert finding.severity == "error" and finding.where == "fc2.weight"
    assert finding.evidence["ranks"] == [0, 2]
    assert ddp_buffers_differ(_ctx(ranks=record)).severity == "info"
    assert ddp_same_data_on_ranks(_ctx(ranks=record)) is None     # the batches differed


def test_identical_replicas_with_their_own_data_are_silent_and_same_data_is_found():
    healthy = RankRecord(rank=0, world_size=2)
    same = RankRecord(rank=1, world_size=2)
    for step in range(5):
        healthy.add_exchange(step, _rows([step, step + 0.5], [[3.0]] * 2, [[2.0]] * 2), ["w"],
                             ["bn.running_var"], ["X"])
        same.add_exchange(step, _rows([step, step], [[3.0]] * 2, [[2.0]] * 2), ["w"],
                          ["bn.running_var"], ["X"])
    for rule in (ddp_same_data_on_ranks, ddp_replicas_diverged, ddp_buffers_differ):
        assert rule(_ctx(ranks=healthy)) is None
    finding = ddp_same_data_on_ranks(_ctx(ranks=same))
    assert finding.code == "DDP_SAME_DATA_ON_RANKS" and finding.evidence["ranks"] == [0, 1]
    # one process: none of the DDP rules speaks
    alone = RankRecord(rank=0, world_size=1)
    alone.add_exchange(0, _rows([1.0], [[3.0]], [[2.0]]), ["w"], ["b"], ["X"])
    assert ddp_same_data_on_ranks(_ctx(ranks=alone)) is None


def test_codes_found_on_other_ranks_are_remembered_with_their_ranks():
    record = RankRecord(rank=0, world_size=2)
    record.add_exchange(8, _rows([1.0, 2.0], [[1.0]] * 2, [[1.0]] * 2, levels=[[0, 2], [3, 0]]),
                        ["w"], ["b"], ["DEAD_RELU", "NAN_LOSS"])
    assert record.remote == {"DEAD_RELU": {1: 3}, "NAN_LOSS": {0: 2}}


@pytest.mark.parametrize("rows", [32, 160], ids=["checksummed whole", "sampled"])
@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_digit_batches_with_blank_corners_get_distinct_fingerprints(framework, rows):
    """8x8 digits flattened: pixel 0 and pixel 32 are blank in every image, so a sample
    taken every 32 values would make every batch look the same (and hide a repeating
    order). The fingerprint must tell different batches apart and equal ones together,
    for a batch checksummed whole (up to WHOLE_BATCH_BYTES) and for a larger, sampled one."""
    from nndebug.adapters import adapt
    from nndebug.monitor.batches import WHOLE_BATCH_BYTES, fingerprint
    assert (rows * 64 * 8 <= WHOLE_BATCH_BYTES) == (rows == 32)
    rng = np.random.default_rng(0)
    images = rng.random((10 * rows, 64))
    images[:, [0, 32]] = 0.0
    if framework == "torch":
        torch = pytest.importorskip("torch")
        model, make = torch.nn.Linear(64, 2), torch.tensor
    else:
        import minigrad as mg
        model, make = mg.nn.Linear(64, 2), mg.tensor
    adapter = adapt(model)
    prints = [fingerprint(adapter, make(images[i:i + rows])) for i in range(0, 10 * rows, rows)]
    assert len(set(prints)) == 10
    assert fingerprint(adapter, make(images[:rows].copy())) == prints[0]
    if framework == "torch":       # the same values held as a strided view: the same batch
        strided = make(np.ascontiguousarray(images[:rows].T)).T
        assert not strided.is_contiguous() and fingerprint(adapter, strided) == prints[0]


@pytest.mark.parametrize("shuffled", [False, True], ids=["same order each epoch", "reshuffled"])
def test_a_model_called_by_keyword_only_has_its_batches_fingerprinted(shuffled):
    """model(features=x), the Hugging Face way: no positional input reaches the forward
    pre-hook; the batch is read from the keywords, so a loader that never reshuffles is
    still found, and a reshuffled one is not."""
    torch = pytest.importorskip("torch")
    import nndebug as nd

    class ByKeyword(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(6, 3)

        def forward(self, features=None, labels=None):
            return torch.nn.functional.cross_entropy(self.lin(features), labels)

    torch.manual_seed(0)
    model = ByKeyword()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(64, 6), torch.randint(0, 3, (64,))
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer) as mon:
        for _ in range(4):                                   # 4 epochs of 8 batches
            order = rng.permutation(64) if shuffled else np.arange(64)
            for start in range(0, 64, 8):
                index = torch.as_tensor(order[start:start + 8])
                optimizer.zero_grad()
                loss = model(features=x[index], labels=y[index])
                loss.backward()
                optimizer.step()
                mon.step(loss)
    assert len(mon.run.fingerprints) == 32 and np.isfinite(mon.run.fingerprints).all()
    codes = {f.code for f in mon.findings()}
    assert ("DATA_ORDER_REPEATS" in codes) == (not shuffled)


def _on_the_ruler_only(sequence):
    """What the monitor keeps of a sequence of batch fingerprints: NaN off the ruler."""
    from nndebug.records import is_fingerprinted_step
    return np.array([v if is_fingerprinted_step(s) else np.nan for s, v in enumerate(sequence)])


@settings(max_examples=80, deadline=None)
@given(period=st.integers(2, 700), epochs=st.floats(2.0, 4.0), seed=st.integers(0, 10_000))
def test_a_repeat_of_any_epoch_length_is_found_on_the_sparse_ruler(period, epochs, seed):
    """Only the first 32 steps and every 32nd step are fingerprinted: a pair of them lies at
    every distance, so an epoch of any length that repeats is found, with its length,
    as soon as it has been seen twice; a reshuffled or augmented order never is."""
    rng = np.random.default_rng(seed)
    epoch = rng.normal(size=period)
    sequence = np.tile(epoch, 5)[:int(period * epochs)]
    assert repeat_period(_on_the_ruler_only(sequence)) == period
    assert repeat_period(_on_the_ruler_only(rng.normal(size=len(sequence)))) is None
    augmented = sequence.copy()      # every batch after the first epoch altered (augmentation)
    augmented[period:] += rng.normal(size=len(sequence) - period)
    assert repeat_period(_on_the_ruler_only(augmented)) is None


def test_the_fingerprint_hook_is_off_between_ruler_steps():
    """Between ruler steps the model runs without the fingerprint hook: a step there gets
    NaN, a ruler step a fingerprint; an epoch of 40 batches repeated is still found."""
    torch = pytest.importorskip("torch")
    import nndebug as nd
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(320, 6), torch.randint(0, 3, (320,))
    hooks_seen = []
    with nd.watch(model, optimizer) as mon:
        for step in range(100):                              # 2.5 epochs of 40 batches
            start = 8 * (step % 40)
            hooks_seen.append(len(model._forward_pre_hooks))
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[start:start + 8]),
                                                     y[start:start + 8])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    prints = np.asarray(mon.run.fingerprints)
    ruler = [s for s in range(100) if s < 32 or s % 32 == 0]
    assert np.isfinite(prints[ruler]).all()
    assert np.isnan(np.delete(prints, ruler)).all()
    # off the ruler, no probe: only the two pre-hooks on for the whole run are left (one
    # counts the no-gradient forwards after the last step, monitor/forwards_after_training.py;
    # one holds those between steps, monitor/validation_inputs.py)
    assert all(hooks_seen[s] == 2 for s in (40, 50, 63, 70, 95))
    found = [f for f in mon.findings() if f.code == "DATA_ORDER_REPEATS"]
    assert found and found[0].evidence["batches_per_epoch"] == 40
