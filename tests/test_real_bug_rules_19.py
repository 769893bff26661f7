"""Rules added for the nineteenth batch of reproduced public bug reports (sequence-model
training loops; ``benchmarks/real_bugs/``): RNN_READ_BEFORE_RECURRENCE
(rules/recurrent_reads.py) and RNN_STATE_DRAWN_AT_RANDOM (rules/random_states.py,
monitor/random_states.py), each with the bug planted and its healthy twins."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def _sequences(n=256, steps=10, features=4, seed=0):
    """Sequences whose class is the sign of the sum of their first feature over time."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, steps, features, generator=generator)
    y = (x[:, :, 0].sum(dim=1) > 0).long()
    return x, y


def _train(model, steps=40):
    torch.manual_seed(0)
    x, y = _sequences()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % len(x)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- RNN_READ_BEFORE_RECURRENCE ------------------------------------------------------------

class Summarised(nn.Module):
    """A recurrent layer summarised by ``read``: 'last' (output[:, -1]), 'first'
    (output[:, 0]), 'final_states' (h_n of each direction) or 'mean' (over time)."""

    def __init__(self, cell=nn.GRU, bidirectional=True, read="last", hidden=12):
        super().__init__()
        torch.manual_seed(0)
        self.read = read
        self.rnn = cell(4, hidden, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), 2)

    def forward(self, x):
        out, state = self.rnn(x)
        h = state[0] if isinstance(state, tuple) else state
        summary = {"last": lambda: out[:, -1], "first": lambda: out[:, 0],
                   "mean": lambda: out.mean(dim=1),
                   "final_states": lambda: torch.cat(list(h[-2:]), dim=1)
                   if h.shape[0] > 1 else h[-1]}[self.read]()
        return self.head(summary)


@pytest.mark.parametrize("cell", [nn.GRU, nn.LSTM, nn.RNN])
def test_bidirectional_read_at_the_last_step_is_named(cell):
    found = _problems(_train(Summarised(cell=cell, read="last")))
    assert "RNN_READ_BEFORE_RECURRENCE" in found
    assert found["RNN_READ_BEFORE_RECURRENCE"].evidence["recurrent_weights"] == \
        ["rnn.weight_hh_l0_reverse"]
    assert "bidirectional" in found["RNN_READ_BEFORE_RECURRENCE"].message


def test_forward_layer_read_at_its_first_step_is_named():
    found = _problems(_train(Summarised(bidirectional=False, read="first")))
    assert found["RNN_READ_BEFORE_RECURRENCE"].evidence["recurrent_weights"] == \
        ["rnn.weight_hh_l0"]


@pytest.mark.parametrize("bidirectional,read", [(True, "final_states"), (True, "mean"),
                                                (False, "last"), (False, "final_states")])
def test_layers_read_after_their_recurrence_are_left_alone(bidirectional, read):
    """The healthy twins: final states, pooling, a forward layer's last step."""
    found = _problems(_train(Summarised(bidirectional=bidirectional, read=read)))
    assert "RNN_READ_BEFORE_RECURRENCE" not in found


def test_a_stacked_bidirectional_layer_names_only_its_top_layer():
    """Layer 1 reads every output of layer 0, so only layer 1's backward recurrence is cut."""
    class Stacked(Summarised):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.rnn = nn.GRU(4, 12, num_layers=2, batch_first=True, bidirectional=True)
    found = _problems(_train(Stacked()))
    assert found["RNN_READ_BEFORE_RECURRENCE"].evidence["recurrent_weights"] == \
        ["rnn.weight_hh_l1_reverse"]


def test_bidirectional_read_at_the_last_step_in_minigrad():
    """The rule reads parameter names and gradient norms only: minigrad's LSTM too."""
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim

    class MgSummarised(mnn.Module):
        def __init__(self, read):
            super().__init__()
            self.read = read
            self.rnn = mnn.LSTM(4, 8, batch_first=True, bidirectional=True)
            self.head = mnn.Linear(16, 2)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1] if self.read == "last" else out.mean(dim=1))

    x, y = _sequences()
    found = {}
    for read in ("last", "mean"):
        mg.manual_seed(0)
        model = MgSummarised(read)
        optimizer = moptim.Adam(model.parameters(), lr=1e-2)
        loss_fn = mnn.CrossEntropyLoss()
        with nd.watch(model, optimizer) as mon:
            for step in range(20):
                index = (np.arange(32) + 32 * step) % len(x)
                optimizer.zero_grad()
                loss = loss_fn(model(mg.tensor(x[index].numpy())), mg.tensor(y[index].numpy()))
                loss.backward()
                optimizer.step()
                mon.step(loss)
        found[read] = set(_problems(mon))
    assert "RNN_READ_BEFORE_RECURRENCE" in found["last"]
    assert "RNN_READ_BEFORE_RECURRENCE" not in found["mean"]


# --- RNN_STATE_DRAWN_AT_RANDOM -------------------------------------------------------------

class ZeroStart(nn.Module):
    """The healthy model: the LSTM starts from its default zero state."""

    def __init__(self, hidden=12):
        super().__init__()
        torch.manual_seed(0)
        self.hidden = hidden
        self.lstm = nn.LSTM(4, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class HelperDrawsState(ZeroStart):
    """The tutorials' pattern: ``self.init_hidden`` returns torch.randn states."""

    def init_hidden(self, batch):
        return (torch.randn(1, batch, self.hidden), torch.randn(1, batch, self.hidden))

    def forward(self, x):
        self.state = self.init_hidden(x.shape[0])
        out, _ = self.lstm(x, self.state)
        return self.head(out[:, -1])


class KeywordDrawnState(ZeroStart):
    """A GRU given ``hx=`` drawn with randn_like, moved with .to()."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, self.hidden, batch_first=True)

    def forward(self, x):
        h0 = torch.zeros(1, x.shape[0], self.hidden)
        noise = torch.randn_like(h0).to(x.device)
        out, _ = self.gru(x, hx=noise)
        return self.head(out[:, -1])


class LearnedStart(ZeroStart):
    """A learned initial state: a parameter, the same on every call."""

    def __init__(self):
        super().__init__()
        self.h0 = nn.Parameter(torch.zeros(1, 1, self.hidden))

    def forward(self, x):
        h0 = self.h0.expand(1, x.shape[0], self.hidden).contiguous()
        out, _ = self.lstm(x, (h0, torch.zeros_like(h0)))
        return self.head(out[:, -1])


class NoisyInputsInTraining(ZeroStart):
    """Random numbers in forward that are not a state: input noise while training, and a
    noise term added after the LSTM (a VAE-like sample): neither starts the recurrence."""

    def forward(self, x):
        if self.training:
            x = x + 0.01 * torch.randn_like(x)
        out, _ = self.lstm(x)
        z = out[:, -1] + 0.0 * torch.randn_like(out[:, -1])
        return self.head(z)


@pytest.mark.parametrize("model_class", [HelperDrawsState, KeywordDrawnState])
def test_states_drawn_at_random_in_forward_are_named(model_class):
    found = _problems(_train(model_class(), steps=5))
    assert "RNN_STATE_DRAWN_AT_RANDOM" in found
    assert found["RNN_STATE_DRAWN_AT_RANDOM"].evidence["calls"][0]["module_type"] == \
        model_class.__name__


@pytest.mark.parametrize("model_class", [ZeroStart, LearnedStart, NoisyInputsInTraining])
def test_states_not_drawn_in_forward_are_left_alone(model_class):
    found = _problems(_train(model_class(), steps=5))
    assert "RNN_STATE_DRAWN_AT_RANDOM" not in found


def test_a_state_drawn_only_while_training_is_left_alone():
    """Noise on the state only under ``if self.training`` is a choice (a regulariser)."""
    class TrainingNoise(ZeroStart):
        def forward(self, x):
            if self.training:
                out, _ = self.lstm(x, (torch.randn(1, x.shape[0], self.hidden),
                                       torch.randn(1, x.shape[0], self.hidden)))
            else:
                out, _ = self.lstm(x)
            return self.head(out[:, -1])
    assert "RNN_STATE_DRAWN_AT_RANDOM" not in _problems(_train(TrainingNoise(), steps=5))


def test_a_state_drawn_in_a_helper_that_forward_calls_is_named():
    """PyTorch's BiLSTM-CRF tutorial after pytorch/tutorials#95: forward calls a feature
    method that sets ``self.hidden = self.init_hidden()`` (torch.randn) and passes it on."""
    class TutorialTagger(ZeroStart):
        def init_hidden(self, batch):
            return (torch.randn(1, batch, self.hidden), torch.randn(1, batch, self.hidden))

        def _get_lstm_features(self, x):
            self.state = self.init_hidden(x.shape[0])
            out, self.state = self.lstm(x, self.state)
            return out[:, -1]

        def sample(self, x):
            """Not called by forward: a generation method may draw its start on purpose."""
            return self.lstm(x, (torch.randn(1, len(x), self.hidden),) * 2)

        def forward(self, x):
            return self.head(self._get_lstm_features(x))
    found = _problems(_train(TutorialTagger(), steps=5))
    calls = found["RNN_STATE_DRAWN_AT_RANDOM"].evidence["calls"]
    assert [c["call"] for c in calls] == ["self.lstm(x, self.state)"]


def test_a_draw_in_a_method_forward_never_calls_is_left_alone():
    class SamplesOnRequest(ZeroStart):
        def sample(self, x):
            return self.lstm(x, (torch.randn(1, len(x), self.hidden),) * 2)
    assert "RNN_STATE_DRAWN_AT_RANDOM" not in _problems(_train(SamplesOnRequest(), steps=5))
