"""Real-bug batch 156 (continual and staged fine-tuning): class-incremental training grows
the head and trains on the new classes only, so the targets never name the old classes'
ids - what TARGET_IDS_OFFSET reads as ids offset on their way in. The old classes' rows of
the output layer were trained weights when watching started (``output_row_norms``), which
tells them from columns nobody used: the LwF twin is silent, while a model trained from
scratch on offset ids is still named, and the norms survive a save and load."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import lwf_distillation_loss_rewrapped_as_new_leaf as lwf  # noqa: E402
from benchmarks.real_bugs import merged_label_ids_collide as merged  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_the_class_incremental_twin_is_silent():
    assert not _codes(lwf.run(fixed=True))


def test_ids_offset_in_a_model_trained_from_scratch_are_still_named():
    assert "TARGET_IDS_OFFSET" in _codes(merged.run())


def _grown_head_run(copy_old_rows):
    """A ten-way head over a trained five-way one (old rows copied, or drawn afresh),
    trained on digits 5-9 only."""
    torch.manual_seed(0)
    x, y = classification()
    old = mlp()                       # 64 -> ... -> 10, of which the first 5 rows are used
    optimizer = torch.optim.Adam(old.parameters(), lr=3e-3)
    low = y < 5
    for xb, yb in batches(x[low], y[low], 150):
        optimizer.zero_grad()
        nn.functional.cross_entropy(old(xb)[:, :5], yb).backward()
        optimizer.step()
    head = old[-1]
    if not copy_old_rows:
        head.reset_parameters()       # nothing learned kept: ids 0-4 are simply unused
    optimizer = torch.optim.Adam(old.parameters(), lr=1e-3)
    high = ~low
    with nd.watch(old, optimizer) as mon:
        for xb, yb in batches(x[high], y[high], 100):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(old(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_old_rows_norms_are_kept_and_read():
    mon = _grown_head_run(copy_old_rows=True)
    name, norms = mon.run.observed.output_row_norms[0]
    assert len(norms) == 10
    assert "TARGET_IDS_OFFSET" not in _codes(mon)


def test_a_head_drawn_afresh_keeps_the_offset_finding():
    assert "TARGET_IDS_OFFSET" in _codes(_grown_head_run(copy_old_rows=False))


def test_output_row_norms_survive_save_and_load(tmp_path):
    mon = _grown_head_run(copy_old_rows=True)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    back = nd.load_run(str(path))
    assert back.run.observed.output_row_norms == mon.run.observed.output_row_norms
