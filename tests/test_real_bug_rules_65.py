"""Real-bug batch 65 (audio, 1-D signal and spectrogram models): PADDING_PREDICTS_LABEL
(``rules/class_padding.py``, read from the first training inputs and targets) and
LABELS_MISALIGNED widened to labels that drift along a frame tagger's positions
(``rules/label_drift.py``, from the per-position loss of the latest recorded steps).

Each is named on its planted case (conservationtechlab/whoot#55, sharathadavanne/doa-net#4)
and on a variant (leading padding on a waveform, a hop-length mismatch in a tagger with a
GRU and ignore_index), and silent on the fixed twins and on set-ups that look alike and are
fine: clips of every class padded, a batch with no padding at all, images whose last pixels
are blank in every class, a causal tagger (its loss falls along the sequence), a tagger of
aligned labels whose first positions are easier by their label counts, and one still early
in training.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import sample_rate_changed_frame_labels_drift as drift_case  # noqa: E402
from benchmarks.real_bugs import silence_padding_only_on_positive_clips as padding_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.class_only_padding import padded_rows, row_labels  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PADDING, DRIFT = "PADDING_PREDICTS_LABEL", "LABELS_MISALIGNED"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, data, loss_fn, lr=3e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in data:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- PADDING_PREDICTS_LABEL ---------------------------------------------------------------

def test_planted_one_class_padding_is_named_and_its_twin_is_silent():
    assert PADDING in _codes(padding_case.run(steps=60))
    assert PADDING not in _codes(padding_case.run(fixed=True, steps=60))


def _waveforms(steps, pad_classes, leading=False, batch_size=32, seed=0, classes=3):
    """(B, samples) noisy tones; clips of ``pad_classes`` are short, zero-padded."""
    rng = np.random.default_rng(seed)
    t = np.arange(200) / 200
    for _ in range(steps):
        y = rng.integers(0, classes, batch_size)
        x = 0.5 * np.sin(2 * np.pi * (5 + 4 * y)[:, None] * t) \
            + 0.3 * rng.standard_normal((batch_size, 200))
        for row in range(batch_size):
            if y[row] in pad_classes:
                keep = rng.integers(80, 160)
                if leading:
                    x[row, :200 - keep] = 0.0
                else:
                    x[row, keep:] = 0.0
        yield torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y)


def _wave_model(classes=3):
    return nn.Sequential(nn.Linear(200, 32), nn.ReLU(), nn.Linear(32, classes))


def test_variant_leading_padding_on_waveforms_of_one_class_is_named():
    mon = _train(_wave_model(), _waveforms(30, pad_classes={2}, leading=True),
                 nn.CrossEntropyLoss())
    assert PADDING in _codes(mon)


def test_padding_in_every_class_is_silent():
    mon = _train(_wave_model(), _waveforms(30, pad_classes={0, 1, 2}), nn.CrossEntropyLoss())
    assert PADDING not in _codes(mon)


def test_no_padding_is_silent():
    mon = _train(_wave_model(), _waveforms(30, pad_classes=set()), nn.CrossEntropyLoss())
    assert PADDING not in _codes(mon)


def test_digits_whose_last_pixels_are_blank_in_every_class_are_silent():
    x, y = classification()
    mon = _train(mlp(), batches(x, y, 30), nn.CrossEntropyLoss())
    assert PADDING not in _codes(mon)


def test_padded_rows_reads_trailing_and_leading_runs_of_one_value():
    x = 1.0 + np.random.default_rng(0).random((4, 3, 20))     # noisy clips
    x[0, :, 15:] = 0.0            # trailing padding
    x[1, :, :6] = 0.0             # leading padding
    x[2, 0, 15:] = 0.0            # one band silent at the end: not padding
    padded, value = padded_rows(x)
    assert padded.tolist() == [True, True, False, False] and value == 0.0
    assert row_labels(np.array([0.0, 1.0, 1.0, 0.0]), 4).tolist() == [0, 1, 1, 0]
    assert row_labels(np.array([0.3, 1.0, 1.0, 0.0]), 4) is None       # regression targets



def test_one_hot_columns_at_the_end_of_a_table_are_not_padding():
    """A table whose last columns are a category's dummies: rows of the earlier categories
    end in zeros, which is a category, not padding (mlcourse.ai#690's table, whose classes
    follow the category, raised PADDING_PREDICTS_LABEL on its fixed twin)."""
    rng = np.random.default_rng(0)
    category = rng.integers(0, 6, 64)
    x = np.concatenate([rng.random((64, 40)), np.eye(6)[category]], axis=1)
    padded, _ = padded_rows(x)
    assert not padded.any()
    x[:, 40:] = rng.random((64, 6))   # signal there instead: the zero rows are padding again
    x[:20, 40:] = 0.0
    padded, value = padded_rows(x)
    assert padded[:20].all() and not padded[20:].any() and value == 0.0

# --- LABELS_MISALIGNED: labels drifting along the frames --------------------------------

def test_planted_frame_label_drift_is_named_and_its_twin_is_silent():
    assert DRIFT in _codes(drift_case.run())
    assert DRIFT not in _codes(drift_case.run(fixed=True))


class Tagger(nn.Module):
    """A GRU frame tagger over (batch, bands, frames) features."""

    def __init__(self, bands=8, classes=4, causal=False):
        super().__init__()
        self.rnn = nn.GRU(bands, 32, batch_first=True, bidirectional=not causal)
        self.out = nn.Linear(32 if causal else 64, classes)

    def forward(self, x):
        h, _ = self.rnn(x.transpose(1, 2))
        return self.out(h).transpose(1, 2)


def _tagging(steps, hop_ratio=1.0, shift=0, ignore_tail=0, batch_size=32, seed=0,
             early_silent=False):
    """Per-frame labels of 24 frames from a 48-tick event track; the features read tick
    ``hop_ratio * i + shift``, the labels tick 2 i (``hop_ratio`` 2: aligned)."""
    rng = np.random.default_rng(seed)
    profiles = np.random.default_rng(11).uniform(0, 1, (4, 8))
    profiles[0] = 0
    for _ in range(steps):
        activity = np.zeros((batch_size, 60), dtype=np.int64)
        for row in range(batch_size):
            for _event in range(4):
                length = rng.integers(6, 14)
                low = 16 if early_silent else 0
                onset = rng.integers(low, 60 - length)
                activity[row, onset:onset + length] = rng.integers(1, 4)
        spectrum = profiles[activity] + 0.4 * rng.random((batch_size, 60, 8))
        frames = np.minimum(np.round(np.arange(24) * hop_ratio + shift).astype(int), 59)
        labels = activity[:, np.arange(24) * 2]
        if ignore_tail:
            labels[:, -ignore_tail:] = -100
        yield (torch.from_numpy(spectrum[:, frames].transpose(0, 2, 1).astype(np.float32)),
               torch.from_numpy(labels))


def test_variant_hop_mismatch_in_a_gru_tagger_with_ignored_frames_is_named():
    data = _tagging(200, hop_ratio=1.25, ignore_tail=2)
    mon = _train(Tagger(), data, nn.CrossEntropyLoss(ignore_index=-100))
    assert DRIFT in _codes(mon)


def test_aligned_gru_tagger_is_silent():
    mon = _train(Tagger(), _tagging(200, hop_ratio=2.0), nn.CrossEntropyLoss())
    assert DRIFT not in _codes(mon)


def test_causal_tagger_whose_loss_falls_along_the_sequence_is_silent():
    mon = _train(Tagger(causal=True), _tagging(200, hop_ratio=2.0), nn.CrossEntropyLoss())
    assert DRIFT not in _codes(mon)


def test_aligned_tagger_whose_first_frames_are_mostly_silence_is_silent():
    """Events never start in the first third: the early labels are easy by their counts
    alone, so the raw loss rises along the sequence; the learned share does not."""
    data = _tagging(200, hop_ratio=2.0, early_silent=True)
    mon = _train(Tagger(), data, nn.CrossEntropyLoss())
    assert DRIFT not in _codes(mon)


def test_aligned_tagger_early_in_training_is_silent():
    mon = _train(Tagger(), _tagging(12, hop_ratio=2.0), nn.CrossEntropyLoss(), lr=1e-3)
    assert DRIFT not in _codes(mon)
