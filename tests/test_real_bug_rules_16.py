"""Rules added for the sixteenth batch of reproduced public bug reports (model-side mistakes;
``benchmarks/real_bugs/``): CTC_NOT_LOG_PROBABILITIES (rules/ctc_inputs.py) and
LAYOUT_NOT_TRANSPOSED (rules/layouts.py, monitor/layer_layouts.py), each with the bug
planted and its healthy twin."""
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.observed import LayerLayout, LossCall  # noqa: E402
from nndebug.rules import diagnose  # noqa: E402
from nndebug.rules.ctc_inputs import looks_like_probabilities, positive_calls  # noqa: E402
from nndebug.rules.layouts import misread_layouts  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(found):
    return sorted(code for code, f in found.items() if f.severity in PROBLEMS)


# --- CTC_NOT_LOG_PROBABILITIES -------------------------------------------------------------

class _Frames(nn.Module):
    def __init__(self, features=6, labels=5):
        super().__init__()
        self.rnn = nn.GRU(features, 32)
        self.out = nn.Linear(32, labels)

    def forward(self, frames):                       # (time, batch, features)
        return self.out(self.rnn(frames)[0])


def _train_ctc(scores_to_loss, steps=40, lr=3e-3, functional=False):
    """Random frames (12, 16, 6) whose two labels (1..4) are written in the first frames;
    a GRU scores them and ``scores_to_loss`` turns the scores into CTC's input, given to
    ``nn.CTCLoss`` or (``functional``) to ``F.ctc_loss``."""
    torch.manual_seed(0)
    model = _Frames()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    ctc = nn.functional.ctc_loss if functional else nn.CTCLoss(blank=0)
    generator = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            labels = torch.randint(1, 5, (16, 2), generator=generator)
            frames = torch.randn(12, 16, 6, generator=generator) * 0.3
            frames[0, torch.arange(16), labels[:, 0]] += 2
            frames[6, torch.arange(16), labels[:, 1]] += 2
            optimizer.zero_grad()
            log_probs = scores_to_loss(model(frames))
            loss = ctc(log_probs, labels, torch.full((16,), 12), torch.full((16,), 2))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


def test_ctc_on_raw_logits_is_named():
    found = _train_ctc(lambda scores: scores)
    assert "CTC_NOT_LOG_PROBABILITIES" in _problems(found)
    finding = found["CTC_NOT_LOG_PROBABILITIES"]
    assert finding.severity == "error"
    assert finding.evidence["input_max"] > 0.01
    assert "log_softmax" in finding.fix


@pytest.mark.parametrize("functional", [False, True])
def test_ctc_called_as_a_function_is_judged_too(functional):
    # F.ctc_loss on the raw logits (another report: gwx314/STARS#9), and its healthy twin
    raw = _train_ctc(lambda scores: scores, functional=functional)
    assert raw["CTC_NOT_LOG_PROBABILITIES"].where == ("ctc_loss" if functional else "CTCLoss")
    healthy = _train_ctc(lambda scores: scores.log_softmax(dim=2), functional=functional)
    assert "CTC_NOT_LOG_PROBABILITIES" not in healthy


def test_ctc_on_probabilities_is_named_as_probabilities():
    found = _train_ctc(lambda scores: scores.softmax(dim=2))
    finding = found["CTC_NOT_LOG_PROBABILITIES"]
    assert "probabilities (a softmax without the log)" in finding.message


def test_ctc_on_log_probabilities_stays_silent():
    found = _train_ctc(lambda scores: scores.log_softmax(dim=2))
    assert "CTC_NOT_LOG_PROBABILITIES" not in found
    assert _problems(found) == []


def _call(low, high, loss="CTCLoss", step=0):
    return LossCall(step=step, loss=loss, output_shape=(12, 16, 5), target_shape=(16, 2),
                    output_min=low, output_max=high)


def test_one_positive_call_is_enough_and_smoothing_is_allowed():
    # a log-probability never exceeds 0: the first call with raw scores already says it,
    # even when later calls (the scores pushed below 0) look like log-probabilities
    calls = [_call(-3.0, 0.4, step=0), _call(-5.0, -0.02, step=8), _call(-6.0, -0.01, step=16)]
    assert [c.step for c in positive_calls(calls)] == [0]
    # log(p + 1e-3) exceeds 0 by about 1e-3: still log-probabilities
    assert positive_calls([_call(-9.0, 0.001)]) == []
    assert positive_calls([_call(float("nan"), float("nan"))]) == []


def test_probabilities_are_told_from_raw_scores():
    assert looks_like_probabilities([_call(0.01, 0.9)])
    assert not looks_like_probabilities([_call(-2.0, 0.9)])


# --- LAYOUT_NOT_TRANSPOSED -----------------------------------------------------------------

class _TextCNN(nn.Module):
    """Ids (B, 12) embedded in 8 dimensions, one Conv1d, a max over its sliding axis."""

    def __init__(self, transpose, kernel=3, vocab=20, length=12, dim=8):
        super().__init__()
        self.transpose = transpose
        self.embed = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim if transpose else length, 16, kernel, padding=kernel // 2)
        self.out = nn.Linear(16, 2)

    def forward(self, ids):
        x = self.embed(ids)
        if self.transpose:
            x = x.transpose(1, 2)
        return self.out(torch.relu(self.conv(x)).amax(dim=2))


class _ConvThenLSTM(nn.Module):
    """Frames (B, 6 channels, 10 steps): a Conv1d, then an LSTM over time."""

    def __init__(self, transpose):
        super().__init__()
        self.transpose = transpose
        self.conv = nn.Conv1d(6, 16, 3, padding=1)
        self.rnn = nn.LSTM(16 if transpose else 10, 24, batch_first=True)
        self.out = nn.Linear(24, 2)

    def forward(self, frames):
        h = torch.relu(self.conv(frames))            # (B, 16, 10)
        if self.transpose:
            h = h.transpose(1, 2)                    # (B, 10, 16): time, then features
        return self.out(self.rnn(h)[0][:, -1])


class _TokenMixer(nn.Module):
    """MLP-Mixer's token mixing: a kernel-1 Conv1d across the tokens of a LayerNorm's
    (B, tokens, features) output, on purpose (no transpose needed)."""

    def __init__(self, tokens=12, dim=8, vocab=20):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.mix = nn.Conv1d(tokens, tokens, 1)
        self.out = nn.Linear(dim, 2)

    def forward(self, ids):
        x = self.embed(ids)
        x = x + self.mix(self.norm(x))
        return self.out(x.mean(dim=1))


def _ids(steps, generator):
    """Ids (32, 12), labelled by whether id 3 is followed by id 4 anywhere."""
    for _ in range(steps):
        ids = torch.randint(0, 20, (32, 12), generator=generator)
        ids[:16, 5:7] = torch.tensor([3, 4])
        y = ((ids[:, :-1] == 3) & (ids[:, 1:] == 4)).any(dim=1).long()
        yield ids, y


def _frames(steps, generator):
    for _ in range(steps):
        y = torch.randint(0, 2, (32,), generator=generator)
        frames = torch.randn(32, 6, 10, generator=generator)
        frames[:, 0, :] += y[:, None].float()
        yield frames, y


def _train(model, data, steps=30, lr=3e-3):
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in data(steps, torch.Generator().manual_seed(0)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, {f.code: f for f in mon.findings()}


def test_embeddings_fed_to_conv1d_untransposed_are_named():
    torch.manual_seed(0)
    _, found = _train(_TextCNN(transpose=False), _ids)
    assert "LAYOUT_NOT_TRANSPOSED" in _problems(found)
    finding = found["LAYOUT_NOT_TRANSPOSED"]
    assert finding.where == "conv" and finding.evidence["next_to"] == "embed"
    assert finding.evidence["side"] == "input"
    assert finding.evidence["input_shape"] == (32, 12, 8)


def test_embeddings_transposed_for_conv1d_stay_silent():
    torch.manual_seed(0)
    _, found = _train(_TextCNN(transpose=True), _ids)
    assert "LAYOUT_NOT_TRANSPOSED" not in found
    assert _problems(found) == []


def test_conv1d_output_read_by_an_lstm_untransposed_is_named():
    torch.manual_seed(0)
    _, found = _train(_ConvThenLSTM(transpose=False), _frames)
    finding = found["LAYOUT_NOT_TRANSPOSED"]
    assert finding.evidence["side"] == "output" and finding.evidence["next_to"] == "rnn"


def test_conv1d_output_transposed_for_the_lstm_stays_silent():
    torch.manual_seed(0)
    _, found = _train(_ConvThenLSTM(transpose=True), _frames)
    assert "LAYOUT_NOT_TRANSPOSED" not in found
    assert _problems(found) == []


def test_kernel_one_token_mixing_stays_silent():
    torch.manual_seed(0)
    _, found = _train(_TokenMixer(), _ids)
    assert "LAYOUT_NOT_TRANSPOSED" not in found


def test_a_model_without_conv1d_gets_no_layout_hooks():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(20, 8), nn.Flatten(), nn.Linear(96, 2))
    mon, _ = _train(model, _ids, steps=5)
    assert mon.run.observed.layer_layouts == []


def test_layouts_are_noted_on_the_first_steps_only():
    torch.manual_seed(0)
    mon, _ = _train(_TextCNN(transpose=True), _ids, steps=30)
    steps = {c.step for c in mon.run.observed.layer_layouts}
    assert 1 <= len(steps) <= 2


def test_layouts_survive_save_and_load(tmp_path):
    torch.manual_seed(0)
    mon, _ = _train(_TextCNN(transpose=False), _ids, steps=10)
    mon.save(tmp_path / "run.nndebug")
    saved = nd.load_run(tmp_path / "run.nndebug")
    assert saved.run.observed.layer_layouts == mon.run.observed.layer_layouts
    assert "LAYOUT_NOT_TRANSPOSED" in {f.code for f in diagnose(saved.run)}


def _layout(order, layer, type_, role, given, gave, kernel=None, step=0):
    return LayerLayout(step=step, order=order, layer=layer, type=type_, role=role,
                       input_shape=given, output_shape=gave, kernel=kernel)


def test_square_tensors_cannot_be_told_apart():
    # length == features: (B, 8, 8) reads the same either way, so nothing is said
    calls = [_layout(0, "embed", "Embedding", "channels_last", (4, 8), (4, 8, 8)),
             _layout(1, "conv", "Conv1d", "channels_first", (4, 8, 8), (4, 16, 8), 3)]
    assert misread_layouts(calls) == []
    calls[0].output_shape, calls[1].input_shape = (4, 12, 8), (4, 12, 8)
    assert [c.layer for c, _, _ in misread_layouts(calls)] == ["conv"]


def test_a_layer_running_before_its_producer_is_no_evidence():
    # the same shape given out by a channels-last layer that runs AFTER the conv
    calls = [_layout(0, "conv", "BatchNorm1d", "channels_first", (4, 12, 8), (4, 12, 8)),
             _layout(1, "norm", "LayerNorm", "channels_last", (4, 3, 5), (4, 12, 8))]
    assert misread_layouts(calls) == []


def test_layouts_in_minigrad():
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim

    class TextCNN(mnn.Module):
        def __init__(self, transpose):
            super().__init__()
            self.transpose = transpose
            self.embed = mnn.Embedding(20, 8)
            self.conv = mnn.Conv1d(8 if transpose else 12, 16, 3, padding=1)
            self.out = mnn.Linear(16, 2)

        def forward(self, ids):
            x = self.embed(ids)
            if self.transpose:
                x = x.transpose(1, 2)
            return self.out(self.conv(x).relu().mean(axis=2))

    found = {}
    for transpose in (False, True):
        mg.manual_seed(0)
        model = TextCNN(transpose)
        optimizer = moptim.Adam(model.parameters(), lr=3e-3)
        loss_fn = mnn.CrossEntropyLoss()
        with nd.watch(model, optimizer) as mon:
            for ids, y in _ids(12, torch.Generator().manual_seed(0)):
                optimizer.zero_grad()
                loss = loss_fn(model(mg.tensor(ids.numpy())), mg.tensor(y.numpy()))
                loss.backward()
                optimizer.step()
                mon.step(loss)
        found[transpose] = {f.code for f in mon.findings()}
    assert "LAYOUT_NOT_TRANSPOSED" in found[False]
    assert "LAYOUT_NOT_TRANSPOSED" not in found[True]
