"""UNNORMALIZED_INPUTS stays quiet on a model that standardises its raw inputs itself, also when
they are only 5-20 times too large (real-bug batch 355: a speaker classifier layer-norming
each utterance of RMS 9 in its forward). The first layer's reading of the scale it was fed
(its output RMS through its own weight, ``_scale_fed_to_first_layer``) decides where it
exists (``FED_SCALE_SHRINK``). Planted: the same inputs fed raw, and fed through a layer
with a tiny initial weight. Healthy: the batch-355 twin, per-sample layer norm in front of
a conv and a linear layer."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import utterance_normalisation_over_whole_batch as utterances  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "UNNORMALIZED_INPUTS"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


class Net(nn.Module):
    def __init__(self, standardise, conv=False, tiny=False):
        super().__init__()
        self.standardise, self.conv = standardise, conv
        self.first = nn.Conv1d(1, 16, 5) if conv else nn.Linear(32, 16)
        if tiny:
            with torch.no_grad():
                self.first.weight.mul_(1e-3)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        if self.standardise:
            x = F.layer_norm(x, x.shape[1:])        # each sample on its own
        h = torch.relu(self.first(x[:, None] if self.conv else x))
        return self.head(h.mean(-1) if self.conv else h)


def _train(model, scale=9.0, steps=40):
    torch.manual_seed(0)
    centres = torch.randn(4, 32)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            y = torch.randint(0, 4, (64,))
            x = (centres[y] + 0.5 * torch.randn(64, 32)) * scale
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("conv", [False, True])
def test_inputs_standardised_in_the_forward_are_not_called_raw(conv):
    torch.manual_seed(0)
    assert CODE not in _codes(_train(Net(standardise=True, conv=conv)))


@pytest.mark.parametrize("conv", [False, True])
def test_the_same_inputs_fed_raw_are_called_raw(conv):
    torch.manual_seed(0)
    assert CODE in _codes(_train(Net(standardise=False, conv=conv)))


def test_a_tiny_first_weight_does_not_pass_for_standardising():
    torch.manual_seed(0)
    assert CODE in _codes(_train(Net(standardise=False, tiny=True)))


def test_the_speaker_twin_is_silent_and_its_bug_named_for_mixing():
    assert CODE not in _codes(utterances.run(fixed=True, steps=60))
    assert "BATCH_MIXING" in _codes(utterances.run(steps=60))


def test_inputs_centred_but_not_divided_are_still_called_raw():
    """A RevIN that subtracts each window's mean and skips its division (real-bug batch 327):
    the first layer reads a scale of about 6, not one."""
    from benchmarks.real_bugs import revin_normalise_skips_division_by_stdev as revin
    assert CODE in _codes(revin.run(steps=40))
    assert CODE not in _codes(revin.run(fixed=True, steps=40))
