"""A fast subset of benchmarks/core_variants_3.py (sequence models and training loops, issue
#10): the variants fixed by the third campaign's widenings and a few that passed as they
came - each bug named with its expected code, each fixed twin silent - and the healthy
look-alikes of the widenings."""

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks import variant_scoring  # noqa: E402
from benchmarks import core_variants_3 as cv  # noqa: E402
from nndebug.monitor.discover import _drops_inside  # noqa: E402
from nndebug.probes.dependencies.alignment import measure_offset  # noqa: E402
from nndebug.probes.dependencies.target_window import window_overlap  # noqa: E402

FAST = ["forecast_window_overlaps_input_window",              # widened: target_window.py
        "cosine_annealing_in_epochs_stepped_every_batch",     # widened: schedule_length.py
        "two_layer_lstm_with_dropout_in_eval_mode",           # widened: discover.py
        "tagger_fed_the_tag_of_its_own_position",             # widened: alignment.py
        "log_softmax_over_batch_axis",                        # passed as it came
        "series_target_shifted_by_zero",                      # passed as it came
        "cnn_features_detached_before_head"]                  # passed as it came


pytestmark = pytest.mark.usefixtures("one_torch_thread")   # conftest.py


def _codes(setup):
    return variant_scoring.problem_codes(cv.train, setup)


@pytest.mark.parametrize("name", FAST)
def test_variant_named_and_twin_silent(name):
    v = next(v for v in cv.VARIANTS if v.name == name)
    assert set(_codes(v.build(False))) & set(v.expected)
    assert _codes(v.build(True)) == []


class LastPositions(nn.Module):
    """A causal GRU that emits its last H positions, trained on next-step targets: targets
    [:, :H-1] are the last H-1 inputs, but output j never reads the input holding its
    target (it lies one step later) - the healthy look-alike of a window overlap."""

    def __init__(self, horizon=8):
        super().__init__()
        self.horizon = horizon
        self.rnn = nn.GRU(3, 32, batch_first=True)
        self.head = nn.Linear(32, 1)

    def forward(self, x):
        return self.head(self.rnn(x)[0][:, -self.horizon:]).squeeze(-1)


def test_a_causal_model_on_its_last_positions_with_next_step_targets_is_silent():
    torch.manual_seed(0)
    data = ((s[:, :16], s[:, 9:17, 0]) for s in cv.series(120, length=24))
    model = LastPositions()
    codes = _codes(dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                        loss_fn=nn.MSELoss(), data=data))
    assert "TARGETS_IN_INPUTS" not in codes and codes == []


def test_window_overlap_reads_the_values():
    s = torch.randn(16, 24, 3).numpy()
    assert window_overlap(s[:, :16], s[:, 12:20, 0]) == (0, 4)
    assert window_overlap(s[:, :16], s[:, 16:24, 2]) is None        # the right split
    assert window_overlap(s[:, :16, 1], s[:, 13:21, 1]) == (0, 3)   # a univariate series
    assert window_overlap(s[:4, :16], s[:4, 12:20, 0]) is None      # too few samples


def test_only_layers_that_drop_by_themselves_count_as_mode_layers():
    assert _drops_inside(nn.LSTM(4, 4, 2, dropout=0.3))
    assert not _drops_inside(nn.LSTM(4, 4, 1))
    assert not _drops_inside(nn.GRU(4, 4, 2))                        # dropout 0
    assert _drops_inside(nn.MultiheadAttention(8, 2, dropout=0.1))
    assert not _drops_inside(nn.MultiheadAttention(8, 2))
    assert not _drops_inside(nn.TransformerEncoderLayer(8, 2))       # its Dropout children count
    assert not _drops_inside(nn.Linear(2, 2))


def test_a_cosine_sized_for_the_run_and_stepped_per_batch_is_silent():
    torch.manual_seed(1)
    model = cv._mlp()
    optimizer = torch.optim.AdamW(model.parameters(), 3e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 120)
    codes = _codes(dict(model=model, optimizer=optimizer, loss_fn=nn.CrossEntropyLoss(),
                        data=cv.digits(120), after=lambda i: scheduler.step()))
    assert codes == []


def test_unbalanced_tags_copied_exactly_are_measured_and_a_correlated_input_is_not():
    rng = torch.Generator().manual_seed(0)
    tags = (torch.rand(32, 24, generator=rng) < 0.06).long().numpy()     # chance ~0.89
    assert measure_offset(tags, tags)[0] == 0                            # an exact copy
    flipped = tags.copy()
    flipped[:, ::10] = 1 - flipped[:, ::10]                              # 90% agreement
    assert measure_offset(flipped, tags) is None
