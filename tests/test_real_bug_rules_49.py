"""Real-bug batch 49 (sequence models built by hand): a forecaster's decoder fed
``torch.zeros_like(y)`` in place of the shifted targets, so every horizon step gets one
prediction (DECODER_INPUT_CONSTANT), and labels handed to an encoder-decoder whole and
shifted inside its forward, which check_dependencies no longer reads as a decoder fed its
own labels (TARGETS_IN_INPUTS stays for the decoder that does read them). The fixed twins
stay silent, and so do constant inputs whose positions the model still tells apart: zeros
next to positional embeddings on the decoder's side (an Informer-style placeholder), a
float mask of ones on a batch without padding."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import forecast_decoder_fed_zeros as fed_zeros  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    transformer_decoder_fed_unshifted_targets as unshifted)
from benchmarks.real_bugs._common import (characters, next_character_batches,  # noqa: E402
                                          next_id_loss, train_watched)
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CONSTANT = "DECODER_INPUT_CONSTANT"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_a_decoder_fed_zeros_is_named():
    found = [f for f in fed_zeros.run(steps=20).findings() if f.code == CONSTANT]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["shape"][1] == fed_zeros.HORIZON
    assert found[0].evidence["output_spread_over_positions"] < 1e-4


def test_a_teacher_forced_decoder_is_silent():
    assert CONSTANT not in _problems(fed_zeros.run(fixed=True, steps=20))


class PlaceholderForecaster(fed_zeros.Forecaster):
    """Informer-style: zeros on the decoder's side, positions added to them."""

    def __init__(self):
        super().__init__()
        self.decoder_position = nn.Embedding(fed_zeros.HORIZON, 32)

    def forward(self, history, decoder_inputs):
        source = self.read_in(history) + self.position(torch.arange(fed_zeros.HISTORY))
        steps = torch.arange(decoder_inputs.shape[1])
        out = self.transformer(source, self.read_in(decoder_inputs) + self.decoder_position(steps))
        return self.read_out(out)


def test_zeros_next_to_decoder_positions_are_silent():
    torch.manual_seed(0)
    model = fed_zeros.TwoInputs(PlaceholderForecaster())
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, nn.functional.mse_loss,
                        fed_zeros.forecast_batches(20, fed_zeros=True))
    assert CONSTANT not in _problems(mon)
    assert mon.run.observed.constant_decoder_inputs       # read, and told apart


class MaskedCharModel(nn.Module):
    """A per-position model that takes a float mask (all ones: no padding) after its ids."""

    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(32, dim)
        self.mix = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, pair):
        ids, mask = pair
        x = (self.embed(ids) + self.position(torch.arange(ids.shape[1]))) * mask.unsqueeze(-1)
        return self.head(self.mix(x)[0])


def test_a_float_mask_of_ones_is_silent():
    torch.manual_seed(0)
    ids, vocab = characters()
    model = MaskedCharModel(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    data = (((x, torch.ones(x.shape)), y) for x, y in next_character_batches(ids, 20, 32))
    mon = train_watched(model, optimizer, next_id_loss, data)
    assert CONSTANT not in _problems(mon)


def test_a_decoder_fed_its_labels_is_named_and_one_that_shifts_them_is_not():
    assert "TARGETS_IN_INPUTS" in _problems(unshifted.run(steps=30))
    assert "TARGETS_IN_INPUTS" not in _problems(unshifted.run(fixed=True, steps=30))


@pytest.mark.parametrize("shift_targets", [False, True])
def test_check_dependencies_reads_labels_shifted_inside_forward(shift_targets):
    torch.manual_seed(0)
    model = unshifted.TeacherForced(unshifted.Reverser(), shift_targets=shift_targets)
    (source, targets), _ = next(unshifted.reversal_batches(1, batch_size=16))
    result = nd.check_dependencies(model, ((source, targets),), targets)
    codes = {f.code for f in result.findings}
    assert ("TARGETS_IN_INPUTS" in codes) == (not shift_targets)
    if shift_targets:
        assert "FUTURE_LEAK" not in codes and result.offset == 1
