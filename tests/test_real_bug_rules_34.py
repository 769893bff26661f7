"""Real-bug batch 34 (recurrent and seq2seq models): a recurrent cell whose state is never
handed back in (RECURRENT_STATE_NEVER_PASSED), and a hand-built backward RNN whose output
is concatenated in reversed time order (REVERSED_STEPS_NOT_REALIGNED). Healthy recurrent
loops - a GRUCell given its state, a layer shared across time steps, nn.LSTM over the whole
sequence, nn.LSTM(bidirectional=True), two RNNs that both read the reversed sequence, the
backward RNN's summary at its last step - stay silent; so does a hand-written cell whose
first call reads the zero initial state (COLLAPSED_ACTIVATIONS judges every call)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import backward_rnn_outputs_not_reversed as not_realigned  # noqa: E402
from benchmarks.real_bugs import gru_hidden_state_never_updated as gru_never_updated  # noqa: E402
from benchmarks.real_bugs import recurrent_cell_state_never_passed as never_passed  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
NEVER_PASSED = "RECURRENT_STATE_NEVER_PASSED"
NOT_REALIGNED = "REVERSED_STEPS_NOT_REALIGNED"
STEPS = 40


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train_rows(model, steps=STEPS):
    """The digits read as 8 rows of 8 pixels, one class per image."""
    torch.manual_seed(0)
    x, y = classification()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x.view(-1, 8, 8), y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class CellLoop(nn.Module):
    """nn.GRUCell over the rows; ``pass_state`` False calls it without its state."""

    def __init__(self, pass_state):
        super().__init__()
        self.pass_state = pass_state
        self.cell = nn.GRUCell(8, 32)
        self.head = nn.Linear(32, 10)

    def forward(self, rows):
        h = None
        for t in range(rows.shape[1]):
            h = self.cell(rows[:, t], h if self.pass_state else None)
        return self.head(h)


class SharedStepLayer(nn.Module):
    """One Linear applied to every row (shared across time steps), then summed: a layer
    called several times per forward on real inputs, no recurrence."""

    def __init__(self):
        super().__init__()
        self.step = nn.Linear(8, 32)
        self.head = nn.Linear(32, 10)

    def forward(self, rows):
        return self.head(sum(torch.tanh(self.step(rows[:, t])) for t in range(rows.shape[1])))


class WholeSequenceLSTM(nn.Module):
    def __init__(self, bidirectional=False):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(16 * (2 if bidirectional else 1), 10)

    def forward(self, rows):
        out, _ = self.lstm(rows)
        return self.head(out.mean(1))


# --- RECURRENT_STATE_NEVER_PASSED ---------------------------------------------------------

def test_a_hand_written_cell_called_without_its_state_is_named():
    assert NEVER_PASSED in _problems(never_passed.run(steps=STEPS))


def test_the_same_cell_given_its_state_is_silent():
    """Its first call reads the zero initial state by design: no COLLAPSED_ACTIVATIONS
    either, since the later calls of the same layers vary across the batch."""
    assert not _problems(never_passed.run(fixed=True, steps=STEPS))


def test_a_layer_collapsed_at_every_call_is_still_named_collapsed():
    assert "COLLAPSED_ACTIVATIONS" in _problems(never_passed.run(steps=STEPS))


def test_an_rnn_called_step_by_step_with_its_initial_state_is_named():
    assert NEVER_PASSED in _problems(gru_never_updated.run(steps=STEPS))


def test_a_gru_cell_called_without_hx_is_named():
    """torch's GRUCell names its state weight weight_hh (no layer suffix)."""
    assert NEVER_PASSED in _problems(_train_rows(CellLoop(pass_state=False)))


def test_a_gru_cell_given_its_state_is_silent():
    assert not _problems(_train_rows(CellLoop(pass_state=True)))


def test_a_layer_shared_across_time_steps_is_silent():
    assert not _problems(_train_rows(SharedStepLayer()))


def test_an_lstm_over_the_whole_sequence_is_silent():
    assert not _problems(_train_rows(WholeSequenceLSTM())) & {NEVER_PASSED, NOT_REALIGNED}


# --- REVERSED_STEPS_NOT_REALIGNED ----------------------------------------------------------

class TwoRNNs(nn.Module):
    """A forward and a backward LSTM over the rows, tagged per row then averaged.
    ``flip_forward``: the forward LSTM reads the reversed rows too; ``realign``: flip the
    backward output back; ``summaries``: join the two last steps instead of every step."""

    def __init__(self, realign=True, flip_forward=False, summaries=False):
        super().__init__()
        self.realign, self.flip_forward, self.summaries = realign, flip_forward, summaries
        self.forward_lstm = nn.LSTM(8, 16, batch_first=True)
        self.backward_lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, rows):
        ahead, _ = self.forward_lstm(rows.flip(1) if self.flip_forward else rows)
        behind, _ = self.backward_lstm(rows.flip(1))
        if self.summaries:
            return self.head(torch.cat([ahead[:, -1], behind[:, -1]], -1))
        if self.realign:
            behind = behind.flip(1)
        return self.head(torch.cat([ahead, behind], -1)).mean(1)


def test_a_backward_rnn_output_left_reversed_is_named():
    assert NOT_REALIGNED in _problems(not_realigned.run(steps=STEPS))


def test_the_backward_rnn_output_flipped_back_is_silent():
    assert not _problems(not_realigned.run(fixed=True, steps=STEPS))


class EmbeddedTwoRNNs(TwoRNNs):
    """TwoRNNs over a learned projection of the rows, so that the flip is in the graph."""

    def __init__(self, **options):
        super().__init__(**options)
        self.project = nn.Linear(8, 8)

    def forward(self, rows):
        return super().forward(self.project(rows))


def test_the_planted_layout_is_named_on_other_data():
    assert NOT_REALIGNED in _problems(_train_rows(EmbeddedTwoRNNs(realign=False)))


def test_a_bidirectional_lstm_is_silent():
    assert not _problems(_train_rows(WholeSequenceLSTM(bidirectional=True))) & {NOT_REALIGNED}


def test_two_rnns_that_both_read_the_reversed_sequence_are_silent():
    """Both outputs list the steps last to first: they agree with each other."""
    mon = _train_rows(EmbeddedTwoRNNs(realign=False, flip_forward=True))
    assert not _problems(mon) & {NOT_REALIGNED}


def test_the_backward_rnn_summary_at_its_last_step_is_silent():
    """out_bw[:, -1] has read the whole reversed sequence: a summary, not a sequence."""
    mon = _train_rows(EmbeddedTwoRNNs(summaries=True))
    assert not _problems(mon) & {NOT_REALIGNED}
