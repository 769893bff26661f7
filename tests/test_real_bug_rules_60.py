"""Real-bug batch 60 (normalisation layers and regularisation): a group norm or layer norm
whose every group holds one value (NORM_OVER_SINGLE_VALUE: GroupNorm(C, C) on pooled 1x1
maps or on a (batch, C) table, LayerNorm(1) on a one-unit output), a model whose output is
a dropout layer's output (DROPOUT_ON_OUTPUT), and a hand-written batch norm whose running
statistics never move while it trains (BATCHNORM_STATISTICS_FROZEN, widened from torch's
momentum=0 to layers of the user's own making). The fixed twins stay silent, and so do the
look-alikes a careless rule would flag: GroupNorm(C, C) on real feature maps (instance
norm), layer norms over a feature axis, dropout before the output layer or on a second
output, a model ending in dropout but trained in eval mode, a hand-written norm that keeps
no running statistics, one whose buffers are only read in eval mode, and one that updates
them by assignment."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import dropout_after_output_layer as output_dropout  # noqa: E402
from benchmarks.real_bugs import group_norm_one_channel_per_group_on_pooled_features as pooled_gn  # noqa: E402,E501
from benchmarks.real_bugs import handwritten_batchnorm_running_stats_discarded as lost_stats  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, regression  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
SINGLE = "NORM_OVER_SINGLE_VALUE"
DROPOUT = "DROPOUT_ON_OUTPUT"
FROZEN = "BATCHNORM_STATISTICS_FROZEN"


def _train(model, x, y, loss_fn, steps=12, lr=1e-3, train_mode=True):
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train(train_mode)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _digits(images=False):
    x, y = classification(images=images)
    return x[:512], y[:512]


# --- NORM_OVER_SINGLE_VALUE ----------------------------------------------------------------
def test_group_norm_with_one_channel_per_group_on_pooled_maps_is_named():
    found = [f for f in pooled_gn.run(steps=30).findings() if f.code == SINGLE]
    assert found and found[0].severity == "error"
    assert found[0].evidence["groups"] == found[0].evidence["channels"] == 64
    assert found[0].evidence["layers"] == ["8"]


def test_group_norm_with_one_channel_per_group_on_a_table_is_named():
    # pytorch/pytorch#94288: GroupNorm(27, 27) on a (batch, 27) tensor gives zeros
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 27), nn.GroupNorm(27, 27), nn.ReLU(), nn.Linear(27, 10))
    found = [f for f in _train(model, *_digits(), nn.CrossEntropyLoss()).findings()
             if f.code == SINGLE]
    assert found and found[0].where == "1"


def test_layer_norm_over_a_one_unit_output_is_named():
    torch.manual_seed(0)
    x, y = regression()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1), nn.LayerNorm(1))
    found = [f for f in _train(model, x[:512], y[:512].unsqueeze(1), nn.MSELoss()).findings()
             if f.code == SINGLE]
    assert found and found[0].evidence["kind"] == "LayerNorm"


def test_the_fixed_group_norm_twin_is_silent():
    assert not _codes(pooled_gn.run(fixed=True, steps=30))


def test_group_norm_with_one_channel_per_group_on_feature_maps_is_silent():
    # GroupNorm(C, C) is instance norm: fine while each map holds many values
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.GroupNorm(16, 16), nn.ReLU(),
                          nn.Flatten(), nn.Linear(16 * 64, 10))
    assert SINGLE not in _codes(_train(model, *_digits(images=True), nn.CrossEntropyLoss()))


def test_layer_norms_over_the_feature_axis_are_silent():
    torch.manual_seed(0)

    class Tokens(nn.Module):            # rows of the digit image as 8 tokens of 8 features
        def __init__(self):
            super().__init__()
            self.embed, self.norm = nn.Linear(8, 32), nn.LayerNorm(32)
            self.norm_all = nn.LayerNorm([8, 32])
            self.head = nn.Linear(32, 10)

        def forward(self, x):
            h = self.norm_all(self.norm(self.embed(x.view(-1, 8, 8))))
            return self.head(h.mean(1))
    assert SINGLE not in _codes(_train(Tokens(), *_digits(), nn.CrossEntropyLoss()))


# --- DROPOUT_ON_OUTPUT ---------------------------------------------------------------------
def test_dropout_after_a_regressors_output_layer_is_named():
    found = [f for f in output_dropout.run(steps=30).findings() if f.code == DROPOUT]
    assert found and found[0].evidence["p"] == 0.5 and found[0].where == "7"


def test_dropout_on_a_classifiers_logits_seen_through_a_view_is_named():
    torch.manual_seed(0)

    class Flat(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
            self.drop = nn.Dropout(0.2)

        def forward(self, x):
            return self.drop(self.body(x)).view(-1, 10)
    assert DROPOUT in _codes(_train(Flat(), *_digits(), nn.CrossEntropyLoss()))


def test_the_fixed_dropout_twin_is_silent():
    assert not _codes(output_dropout.run(fixed=True, steps=30))


def test_dropout_before_the_output_layer_or_on_a_second_output_is_silent():
    torch.manual_seed(0)

    class TwoOutputs(nn.Module):        # logits first; dropped features for another loss
        def __init__(self):
            super().__init__()
            self.hidden = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.5))
            self.head, self.drop = nn.Linear(64, 10), nn.Dropout(0.1)

        def forward(self, x):
            h = self.hidden(x)
            return self.head(h), self.drop(h)
    mon = _train(TwoOutputs(), *_digits(), lambda out, y: nn.functional.cross_entropy(out[0], y))
    assert DROPOUT not in _codes(mon)


def test_a_model_ending_in_dropout_trained_in_eval_mode_is_not_named_for_it():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10), nn.Dropout(0.2))
    mon = _train(model, *_digits(), nn.CrossEntropyLoss(), train_mode=False)
    assert DROPOUT not in _codes(mon)


# --- BATCHNORM_STATISTICS_FROZEN (hand-written norms) --------------------------------------
class LocalUpdateNorm(lost_stats.BatchNorm2d):
    """The update assigned to a local name: the buffer keeps its start."""

    def forward(self, x):
        if self.training:
            mean = x.mean(dim=(0, 2, 3)).detach()
            running_mean = (1 - self.momentum) * self.running_mean + self.momentum * mean  # noqa
        return super().forward(x) if not self.training else \
            nn.functional.batch_norm(x, None, None, self.weight, self.bias, True)


class AssigningNorm(lost_stats.BatchNorm2d):
    """The update assigned back to the buffer attribute: it moves."""

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                m = self.momentum
                self.running_mean = (1 - m) * self.running_mean + m * x.mean(dim=(0, 2, 3))
                self.running_var = (1 - m) * self.running_var + m * x.var(dim=(0, 2, 3))
            return nn.functional.batch_norm(x, None, None, self.weight, self.bias, True)
        return super().forward(x)


class BatchStatisticsOnly(nn.Module):
    """A norm that keeps no running statistics (batch statistics in both modes)."""

    def __init__(self, channels):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))

    def forward(self, x):
        return nn.functional.batch_norm(x, None, None, self.weight, self.bias, True)


def _conv_net(norm):
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1, bias=False), norm(8), nn.ReLU(),
                         nn.Flatten(), nn.Linear(8 * 64, 10))


def test_a_hand_written_norm_whose_update_is_discarded_is_named():
    found = [f for f in lost_stats.run(steps=30).findings() if f.code == FROZEN]
    assert found and set(found[0].evidence["layers"]) == {"1", "5"}


def test_a_hand_written_norm_whose_update_goes_to_a_local_name_is_named():
    mon = _train(_conv_net(LocalUpdateNorm), *_digits(images=True), nn.CrossEntropyLoss())
    assert FROZEN in _codes(mon)


def test_the_fixed_hand_written_norm_twin_is_silent():
    assert not _codes(lost_stats.run(fixed=True, steps=30))


@pytest.mark.parametrize("norm", [AssigningNorm, BatchStatisticsOnly, nn.BatchNorm2d])
def test_norms_that_update_or_keep_no_running_statistics_are_silent(norm):
    mon = _train(_conv_net(norm), *_digits(images=True), nn.CrossEntropyLoss())
    assert FROZEN not in _codes(mon)


class FrozenNormNet(nn.Sequential):
    """A net that keeps its hand-written norm in eval mode on purpose (frozen statistics)."""

    def train(self, mode=True):
        super().train(mode)
        self[1].eval()
        return self


def test_a_hand_written_norm_kept_in_eval_mode_is_silent():
    torch.manual_seed(0)
    model = FrozenNormNet(nn.Conv2d(1, 8, 3, padding=1, bias=False), lost_stats.BatchNorm2d(8),
                          nn.ReLU(), nn.Flatten(), nn.Linear(8 * 64, 10))
    mon = _train(model, *_digits(images=True), nn.CrossEntropyLoss())
    assert FROZEN not in _codes(mon)


# --- PADDING_NOT_MASKED (soft-target losses: label smoothing) ------------------------------
from benchmarks.real_bugs import label_smoothing_loss_over_padding as smoothing  # noqa: E402
from benchmarks.real_bugs._common import padded_lines  # noqa: E402

PADDING = "PADDING_NOT_MASKED"


def test_a_label_smoothing_kl_loss_over_padding_is_named():
    found = [f for f in smoothing.run(steps=12).findings() if f.code == PADDING]
    assert found and found[0].evidence["soft_targets"] and found[0].evidence["pad_id"] == 0


def _smoothed_lm(mask_padding, steps=10):
    """A character LSTM trained with F.cross_entropy on smoothed probability rows."""
    torch.manual_seed(0)
    lines, vocab = padded_lines()
    model = smoothing.CharLSTM(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            batch = lines[step * 8:(step + 1) * 8]
            logits = model(batch[:, :-1]).reshape(-1, vocab)
            targets = batch[:, 1:].reshape(-1)
            if mask_padding:
                logits, targets = logits[targets != 0], targets[targets != 0]
            rows = nn.functional.one_hot(targets, vocab).float() * 0.9 + 0.1 / vocab
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(logits, rows)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_smoothed_probability_targets_over_padding_are_named():
    assert PADDING in _codes(_smoothed_lm(mask_padding=False))


def test_smoothed_probability_targets_with_the_padding_dropped_are_silent():
    assert PADDING not in _codes(_smoothed_lm(mask_padding=True))


def test_the_fixed_smoothing_twin_is_silent():
    assert not _codes(smoothing.run(fixed=True, steps=12))


def test_mixed_up_soft_targets_of_a_classifier_are_silent():
    # mixup: soft rows over the ten digits, the frequent class no padding run
    torch.manual_seed(0)
    x, y = _digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 12, batch_size=32):
            shuffle = torch.randperm(len(xb))
            rows = nn.functional.one_hot(yb, 10).float()
            mixed_x = 0.7 * xb + 0.3 * xb[shuffle]
            mixed_rows = 0.7 * rows + 0.3 * rows[shuffle]
            optimizer.zero_grad()
            loss = nn.functional.kl_div(nn.functional.log_softmax(model(mixed_x), -1),
                                        mixed_rows, reduction="batchmean")
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert PADDING not in _codes(mon)
