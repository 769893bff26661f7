"""NORMALISATION_ERASES_CLASS_SIGNAL (real-bug batch 172): inputs normalised per sample along
an axis (per-utterance CMVN, a per-window z-score) erase a class that lives in the sample's
level, and the loss stays at chance. Missed as it came (LOSS_AT_CHANCE only). Named on the
batch-172 case and on a planted sensor-window version; silent on the look-alikes: the same
per-sample normalisation where the class lives in the shape (it learns), raw inputs with
labels that belong to nobody (at chance, not normalised), and a centred-only version that
learns."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nndebug.monitor.sample_normalised_inputs import centred_axis
from nndebug.rules.sample_normalisation import normalised_axis

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import per_utterance_cmvn_erases_speaker_identity as cmvn  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "NORMALISATION_ERASES_CLASS_SIGNAL"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_the_batch_172_case_is_named_and_its_twin_is_not():
    assert CODE in _codes(cmvn.run())
    assert not _codes(cmvn.run(fixed=True))


def _windows(n, rng, *, class_in="offset", normalise=True, centre_only=False,
             shuffled=False):
    """Sensor windows (n, 3 channels, 32 steps): an activity is a per-channel offset (the
    gravity direction) or a rhythm's frequency; noise on top."""
    labels = rng.integers(0, 4, n)
    t = np.arange(32)
    offsets = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0]], dtype=float) * 2
    rhythm = np.sin(2 * np.pi * (labels[:, None] + 1) * t / 32)[:, None, :]
    x = rng.standard_normal((n, 3, 32)) * 0.5
    x += offsets[labels][:, :, None] if class_in == "offset" else rhythm + 0.3
    if normalise:
        x = x - x.mean(axis=2, keepdims=True)
        if not centre_only:
            x = x / (x.std(axis=2, keepdims=True) + 1e-6)
    if shuffled:
        labels = rng.permutation(labels)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(labels)


def _train(steps=150, **data):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = _windows(2000, rng, **data)
    model = nn.Sequential(nn.Conv1d(3, 16, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
                          nn.Flatten(), nn.Linear(16, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(x), 64))
            loss = nn.functional.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_per_window_z_score_erasing_the_gravity_offset_is_named():
    codes = _codes(_train())
    assert CODE in codes and "LOSS_AT_CHANCE" in codes


def test_a_per_window_centring_erasing_the_offset_is_named():
    assert CODE in _codes(_train(centre_only=True))


def test_per_window_normalisation_is_silent_when_the_class_lives_in_the_shape():
    assert not _codes(_train(class_in="rhythm"))


def test_raw_windows_with_shuffled_labels_are_at_chance_but_not_named_for_normalising():
    codes = _codes(_train(normalise=False, shuffled=True))
    assert "LOSS_AT_CHANCE" in codes and CODE not in codes


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4), st.data())
def test_a_batch_normalised_along_an_axis_is_read_on_that_axis(ndim, data):
    shape = tuple(data.draw(st.integers(4, 9)) for _ in range(ndim))
    axis = data.draw(st.integers(1, ndim - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    x = rng.standard_normal(shape) * 3 + rng.standard_normal(shape[:1] + (1,) * (ndim - 1))
    z = (x - x.mean(axis=axis, keepdims=True)) / x.std(axis=axis, keepdims=True)
    read = centred_axis(z.astype(np.float32))
    assert read[0] == axis and read[3] == read[2] == read[4]
    raw = centred_axis((x + 5).astype(np.float32))
    assert raw is None or raw[3] < raw[2]


def test_a_later_batch_not_normalised_rules_it_out():
    rows = [(0, 8, 2, 24, 128, 128, 128), (1, 8, 2, 24, 128, 3, 0)]
    assert normalised_axis(rows[:1]) == (2, 24, 128, 1.0)
    assert normalised_axis(rows) is None
    assert normalised_axis([(0, 8, 2, 24, 128, 128, 0), (1, 8, 1, 16, 192, 192, 0)]) is None
