"""nndebug.watch under torch.distributed: 2 ranks, gloo on 127.0.0.1, spawned by the test.

Each plant found on every rank (the findings are merged), each healthy twin silent,
training bit-identical with and without watch on every rank, no hang when a rank stops
early, and no process left behind (every rank is killed at the timeout)."""
import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest

pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

if not dist.is_available():
    pytest.skip("torch.distributed is not available", allow_module_level=True)

WORKER = pathlib.Path(__file__).with_name("ddp_worker.py")
ROOT = WORKER.parents[1]
TIMEOUT_S = 150


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(tmp_path, *scenarios, world=2, exchange_timeout=None):
    """Start ``world`` ranks running the scenarios; {rank: {scenario: result}}."""
    port = _free_port()
    prefix = tmp_path / "result"
    procs = []
    for rank in range(world):
        env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
               "RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank),
               "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
        if exchange_timeout:
            env["NNDEBUG_EXCHANGE_TIMEOUT_S"] = str(exchange_timeout)
        procs.append(subprocess.Popen([sys.executable, str(WORKER), str(prefix), *scenarios],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True))
    outputs = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=TIMEOUT_S)
            outputs.append(out)
    finally:
        for p in procs:                   # nothing left behind, whatever happened
            if p.poll() is None:
                p.kill()
                p.wait()
    for rank, (p, out) in enumerate(zip(procs, outputs)):
        assert p.returncode == 0, f"rank {rank} failed:\n{out[-3000:]}"
    return {rank: json.loads(pathlib.Path(f"{prefix}.{rank}.json").read_text())
            for rank in range(world)}


def serious(entry):
    return {code for code, severity, _, _ in entry["findings"] if severity != "info"}


def codes(entry):
    return {code for code, _, _, _ in entry["findings"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ddp")
    results = run_ranks(folder, "plain-healthy", "healthy", "same-data", "no-set-epoch",
                        "not-wrapped", "accumulate-never-sync", "accumulate-healthy",
                        "bn-buffers-not-broadcast", "bn-healthy", "no-zero-grad", "save-to",
                        "resumed-same-data")
    return dict(results, folder=str(folder))


def test_healthy_ddp_is_silent_and_training_is_bit_identical(runs):
    for rank in (0, 1):
        assert not serious(runs[rank]["healthy"]), runs[rank]["healthy"]["findings"]
        assert runs[rank]["healthy"]["weights"] == runs[rank]["plain-healthy"]["weights"]
    assert runs[0]["healthy"]["weights"] == runs[1]["healthy"]["weights"]   # DDP replicas agree


@pytest.mark.parametrize("scenario", ["accumulate-healthy", "bn-healthy"])
def test_healthy_accumulation_and_batchnorm_are_silent(runs, scenario):
    for rank in (0, 1):
        assert not serious(runs[rank][scenario]), runs[rank][scenario]["findings"]
        assert "DDP_BUFFERS_DIFFER" not in codes(runs[rank][scenario])


@pytest.mark.parametrize("scenario, code", [
    ("same-data", "DDP_SAME_DATA_ON_RANKS"),
    ("no-set-epoch", "DATA_ORDER_REPEATS"),
    ("not-wrapped", "DDP_REPLICAS_DIVERGED"),
    ("accumulate-never-sync", "DDP_REPLICAS_DIVERGED"),
    ("no-zero-grad", "GRADIENTS_ACCUMULATING"),    # .grad is the mean over ranks under DDP
])
def test_each_plant_is_found_on_every_rank(runs, scenario, code):
    for rank in (0, 1):
        assert code in serious(runs[rank][scenario]), (rank, runs[rank][scenario]["findings"])
    found = [f for f in runs[0][scenario]["findings"] if f[0] == code][0]
    assert found[3], "evidence must name the ranks concerned"
    if code == "DDP_REPLICAS_DIVERGED":
        assert found[2] and not found[2].startswith("module."), found


def test_each_rank_saves_its_own_run_beside_the_shared_save_to_path(runs):
    """save_to="run.nndebug" on both ranks: rank 0 writes it, rank 1 run.rank1.nndebug; each
    file holds that rank's own loss curve (the ranks train on different shards)."""
    import numpy as np

    import nndebug as nd
    folder = pathlib.Path(runs["folder"])
    assert sorted(p.name for p in folder.glob("*.nndebug")) == ["run.nndebug", "run.rank1.nndebug"]
    assert not list(folder.glob(".*.tmp"))
    for rank, name in ((0, "run.nndebug"), (1, "run.rank1.nndebug")):
        saved = nd.load_run(folder / name)
        np.testing.assert_array_equal(saved.run.loss_array()[1], runs[rank]["save-to"]["losses"])
    assert runs[0]["save-to"]["losses"] != runs[1]["save-to"]["losses"]


def test_batchnorm_buffers_that_are_not_broadcast_are_noted(runs):
    for rank in (0, 1):
        entry = runs[rank]["bn-buffers-not-broadcast"]
        assert "DDP_BUFFERS_DIFFER" in codes(entry), entry["findings"]
        assert not serious(entry) - {"DDP_BUFFERS_DIFFER"}


def test_a_rank_that_stops_early_blocks_no_one(tmp_path):
    result = run_ranks(tmp_path, "rank-stops-early", exchange_timeout=5)
    survivor = result[0]["rank-stops-early"]
    assert "MONITOR_ERROR" in codes(survivor), survivor["findings"]
    assert survivor["report_has_text"]


def test_a_restart_continues_the_rank_exchanges(runs):
    """One epoch, mon.state_dict(), a new monitor that loads it, one more epoch: the
    exchanges before the restart count with those after it, and the same data on both ranks
    is still named (its share is over the whole run)."""
    for rank in (0, 1):
        entry = runs[rank]["resumed-same-data"]
        before, total, same = entry["exchanges"]
        assert 0 < before < total and same == total, entry["exchanges"]
        assert "DDP_SAME_DATA_ON_RANKS" in codes(entry), entry["findings"]
