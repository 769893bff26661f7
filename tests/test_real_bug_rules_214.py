"""Real-bug batch 214 (image-to-image translation and style transfer): the alignment probe
took a two-channel image translation for a next-step task. The translator's inputs carry the
ink in channel 0 and the dark background (-1) in channel 1; its targets carry the background
in channel 0 and the ink in channel 1. Channel 0 of every target equals channel 1 of every
input, so axis 1 - read as a sequence of 2 positions - showed targets[:, t] == inputs[:, t +
1] on its single comparable pair, and the 3x3 convolutions' reading of the other channel was
called a FUTURE_LEAK (of the healthy twins of ``instance_norm_running_stats_used_at_test``
and ``instance_norm_variance_of_variance``). A shift now counts only where it is seen on at
least MIN_SHIFTED_POSITIONS target positions between float inputs and targets (token ids
keep the single pair: a 2-token next-token task). Planted: next-token tasks as short as 3
positions, whose leaks are still named (both frameworks); healthy: the two-channel
translation, and the measured offsets of hand-made arrays."""
import numpy as np
import pytest

import minigrad as mg
import nndebug as nd
from nndebug.probes.dependencies.alignment import MIN_SHIFTED_POSITIONS, measure_offset
from nndebug.zoo.minigrad_cases import _seq_models as mseq

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from nndebug.zoo.torch_cases import _seq_models as tseq  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
FRAMEWORKS = {"torch": tseq, "minigrad": mseq}


def _codes(result):
    return [f.code for f in result.findings if f.severity in ("warning", "error")]


def _gpt(framework, **switches):
    (torch.manual_seed if framework == "torch" else mg.manual_seed)(0)
    return FRAMEWORKS[framework].TinyGPT(**switches)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("length", [3, 8])
def test_a_short_decoder_that_reads_the_future_is_still_named(framework, length):
    ids, targets, _ = FRAMEWORKS[framework].lm_batch(batch=4, length=length, pad_tail=0)
    res = nd.check_dependencies(_gpt(framework, length=length, mask="none"), ids, targets)
    assert res.offset == 1 and _codes(res) == ["FUTURE_LEAK"], str(res)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_short_correctly_masked_decoder_passes(framework):
    ids, targets, _ = FRAMEWORKS[framework].lm_batch(batch=4, length=3, pad_tail=0)
    res = nd.check_dependencies(_gpt(framework, length=3), ids, targets)
    assert res.offset == 1 and res.passed, str(res)


def _two_colour_batch(n=32, seed=0):
    """Digit-like images with the ink in channel 0 (inputs) and in channel 1 (targets)."""
    rng = np.random.default_rng(seed)
    ink = np.where(rng.random((n, 1, 8, 8)) < 0.3, rng.random((n, 1, 8, 8)), -1.0)
    dark = -np.ones_like(ink)
    x = np.concatenate([ink, dark], 1).astype(np.float32)
    return x, x[:, ::-1].copy()


def test_a_shift_seen_on_one_pair_of_positions_is_no_offset():
    x, y = _two_colour_batch()
    assert MIN_SHIFTED_POSITIONS == 2
    assert np.array_equal(y[:, 0], x[:, 1])       # the single pair a shift by one compares
    assert measure_offset(x, y) is None


def test_a_shift_seen_on_two_positions_or_more_is_still_measured():
    rng = np.random.default_rng(0)
    series = rng.normal(size=(16, 4, 5)).astype(np.float32)
    assert measure_offset(series[:, :-1], series[:, 1:])[0] == 1     # 3 positions, 2 pairs
    assert measure_offset(series[:, :2], series[:, 1:3]) is None      # 2 positions, 1 pair
    ids = rng.integers(0, 50, size=(16, 4))
    assert measure_offset(ids[:, :-1], ids[:, 1:])[0] == 1            # tokens, 3 positions
    assert measure_offset(ids[:, :2], ids[:, 1:3])[0] == 1            # tokens keep 1 pair


def test_a_two_colour_image_translator_is_no_future_leak():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.InstanceNorm2d(8, affine=True),
                          nn.ReLU(), nn.Conv2d(8, 2, 3, padding=1), nn.Tanh())
    x, y = _two_colour_batch()
    res = nd.check_dependencies(model, torch.from_numpy(x), torch.from_numpy(y))
    assert "FUTURE_LEAK" not in _codes(res) and res.offset is None, str(res)
