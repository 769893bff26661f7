"""Real-bug batch 163 (sequence-to-sequence training): a loop that masks its per-position
losses itself (``reduction="none"`` times its own mask) leaves no ``ignore_index`` on the
padding, and the high loss of the never-trained pad positions, late in each row, read as
labels drifting along the sequence (LABELS_MISALIGNED on a translation model at 1.00 exact
match). Pad ids - the ids of the runs ending the rows that never occur before them - are
left out of the per-position losses now. The twin is silent; labels that really drift (the
24 -> 16 kHz frame tagger of batch 65) are still named by its own tests."""
import pytest

torch = pytest.importorskip("torch")

from benchmarks.real_bugs import end_token_left_out_of_loss_length as end_token  # noqa: E402
from nndebug.monitor.position_losses import _padded_tails  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def test_the_self_masked_translation_twin_is_silent():
    mon = end_token.run(fixed=True)
    assert mon.held_out_exact_match > 0.9
    assert not {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_pad_runs_ending_rows_are_found_and_real_classes_are_not():
    pad, eos = 2, 1
    target = torch.tensor([[5, 6, 7, eos, pad, pad],
                           [5, 7, eos, pad, pad, pad],
                           [6, 6, 5, 7, 5, eos]])
    valid = torch.ones_like(target, dtype=torch.bool)
    tails = _padded_tails(target, valid, 8)
    assert tails.tolist() == [[False] * 4 + [True] * 2, [False] * 3 + [True] * 3,
                              [False] * 6]


def test_a_class_that_also_occurs_inside_rows_is_not_padding():
    background = 0
    target = torch.tensor([[3, background, 4, background, background],
                           [4, 3, 3, background, background]])
    valid = torch.ones_like(target, dtype=torch.bool)
    assert not _padded_tails(target, valid, 8).any()
