"""What the ranks of a DDP run exchanged is saved with the run and continued after a restart
(``rank_records.to_plain`` / ``from_plain`` / ``continued``); NumPy only, no process group."""
import numpy as np

from nndebug.rank_records import Divergence, RankRecord, continued, from_plain, to_plain


def _record(exchanges, same, first_same=None, params=None, remote=None, error=None):
    return RankRecord(rank=1, world_size=2, backend="gloo", exchanges=exchanges,
                      batches_compared=exchanges, same_batches=same,
                      first_same_batch_step=first_same, params=params,
                      remote=remote or {}, error=error)


def test_a_record_survives_json():
    import json
    record = _record(5, 4, 0, Divergence(8, "0.weight", [1], [1.5, 1.25]),
                     {"DEAD_RELU": {1: 2, 0: 3}}, "timed out")
    back = from_plain(json.loads(json.dumps(to_plain(record))))
    assert back == record


def test_the_exchanges_after_a_restart_count_with_those_before():
    before = _record(6, 6, 0, remote={"NAN_LOSS": {0: 3}})
    after = _record(4, 0, None, Divergence(64, "2.bias", [1], [0.5, 0.75]),
                    {"NAN_LOSS": {1: 2}, "DEAD_RELU": {1: 2}})
    both = continued(before, after)
    assert (both.exchanges, both.batches_compared, both.same_batches) == (10, 10, 6)
    assert both.first_same_batch_step == 0 and both.params.step == 64
    assert both.remote == {"NAN_LOSS": {0: 3, 1: 2}, "DEAD_RELU": {1: 2}}
    assert before.exchanges == 6 and after.exchanges == 4      # neither is changed


def test_a_saved_run_keeps_its_rank_record(tmp_path):
    import pytest
    torch = pytest.importorskip("torch")
    import nndebug as nd
    model = torch.nn.Linear(3, 2)
    with nd.watch(model) as mon:
        mon.step(1.0)
        mon.run.ranks = _record(3, 3, 0, remote={"DEAD_RELU": {1: 2}})
        path = mon.save(tmp_path / "run.nndebug")
    loaded = nd.load_run(path)
    assert loaded.run.ranks == mon.run.ranks
    assert np.isfinite(loaded.run.ranks.exchanges)
