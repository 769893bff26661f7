"""STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS: a recurrent language model trained by truncated
backpropagation through time on consecutive windows of batchified text, whose state is
reset at every window (hx=None, zeros, or an LSTM's cell state alone zeroed) instead of
handed on detached (real-bug batches 170 and 283). The monitor reads, on the first
recorded steps, each recurrent layer's initial state and each stream's first input and
last target (``monitor/window_borders.py``); the rule (``rules/contiguous_windows.py``)
names a reset only where the windows continue each other. Silent when the state is
carried, on shuffled windows (stateless training on independent windows is healthy), on a
model without recurrent layers, and with too few recorded steps."""
import importlib
from types import SimpleNamespace

import numpy as np
import pytest

import nndebug as nd
from nndebug.observed import Observed
from nndebug.rules.contiguous_windows import state_reset_between_contiguous_windows

torch = pytest.importorskip("torch")
nn = torch.nn

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CODE = "STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS"
PROBLEMS = ("warning", "error")
VOCAB, STREAMS, WINDOW = 40, 8, 6


def corpus(length=3000, seed=0):
    """A token stream with some structure (a random first-order chain), as int64 ids."""
    rng = np.random.default_rng(seed)
    successors = rng.integers(0, VOCAB, (VOCAB, 3))
    ids = [0]
    for _ in range(length - 1):
        ids.append(int(successors[ids[-1], rng.integers(3)]))
    return torch.tensor(ids, dtype=torch.int64)


def batchify(ids):
    """(length, STREAMS): column b is the b-th contiguous stretch of ``ids``."""
    length = len(ids) // STREAMS
    return ids[:length * STREAMS].view(STREAMS, length).t().contiguous()


def windows(columns, shuffled=False, seed=0):
    """(inputs, targets) windows of WINDOW steps, (WINDOW, STREAMS) each: in reading order, or
    each stream's window drawn from anywhere in the text (``shuffled``)."""
    rng = np.random.default_rng(seed)
    starts = range(0, len(columns) - 1 - WINDOW, WINDOW)
    for start in starts:
        if not shuffled:
            yield columns[start:start + WINDOW], columns[start + 1:start + 1 + WINDOW]
            continue
        picks = rng.integers(0, len(columns) - 1 - WINDOW, STREAMS)
        x = torch.stack([columns[p:p + WINDOW, b] for b, p in enumerate(picks)], dim=1)
        y = torch.stack([columns[p + 1:p + 1 + WINDOW, b] for b, p in enumerate(picks)], dim=1)
        yield x, y


class LanguageModel(nn.Module):
    """Embedding, one recurrent layer (``kind``: "lstm" or "gru"), a linear read-out."""

    def __init__(self, kind="lstm", batch_first=False):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 16)
        layer = nn.LSTM if kind == "lstm" else nn.GRU
        self.rnn = layer(16, 32, batch_first=batch_first)
        self.out = nn.Linear(32, VOCAB)

    def forward(self, x, state=None):
        y, state = self.rnn(self.embed(x), state)
        return self.out(y), state


def hand_on(state, mode):
    """The state the next window starts from, by ``mode``: "carried" (detached), "none",
    "zeros", or "c_zeros" (an LSTM's h carried, its c zeroed)."""
    if mode == "none":
        return None
    parts = state if isinstance(state, tuple) else (state,)
    if mode == "zeros":
        parts = tuple(torch.zeros_like(p) for p in parts)
    elif mode == "c_zeros":
        parts = (parts[0].detach(), torch.zeros_like(parts[1]))
    else:
        parts = tuple(p.detach() for p in parts)
    return parts if isinstance(state, tuple) else parts[0]


def train(mode="none", kind="lstm", batch_first=False, shuffled=False, steps=12,
          flat_targets=True, **watch):
    torch.manual_seed(0)
    model = LanguageModel(kind, batch_first)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    state = None
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (x, y) in enumerate(windows(batchify(corpus()), shuffled)):
            if step == steps:
                break
            if batch_first:
                x, y = x.t().contiguous(), y.t().contiguous()
            logits, state = model(x, state)
            state = hand_on(state, mode)
            if flat_targets:
                loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
            else:                                  # (B, V, T) scores against (B, T) ids
                loss = nn.functional.cross_entropy(logits.transpose(1, 2), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- planted runs -------------------------------------------------------------------------
def test_a_state_started_from_none_at_every_contiguous_window_is_named():
    mon = train("none")
    assert CODE in codes(mon)
    finding = next(f for f in mon.findings() if f.code == CODE)
    assert finding.where == "rnn" and finding.evidence["state"] == "none"
    assert finding.evidence["steps"] == [1, 2] and finding.evidence["streams"] == STREAMS


def test_the_carried_twin_is_silent():
    mon = train("carried")
    assert CODE not in codes(mon)
    assert [kind for *_, states in mon.run.observed.window_borders
            for _, kind in states] == ["none", "carried", "carried"]


def test_an_lstm_whose_cell_state_alone_is_zeroed_is_named():
    mon = train("c_zeros")
    assert CODE in codes(mon)
    assert next(f for f in mon.findings() if f.code == CODE).evidence["state"] == "c_zeros"


def test_an_all_zero_state_passed_at_every_window_is_named():
    assert CODE in codes(train("zeros"))


def test_shuffled_windows_with_a_reset_state_are_silent():
    """Stateless training on independent windows: resetting is right there."""
    mon = train("none", shuffled=True)
    assert CODE not in codes(mon)
    assert len(mon.run.observed.window_borders) == 3     # read, and judged not contiguous


@pytest.mark.parametrize("flat_targets", [True, False])
def test_batch_first_windows_are_read_along_their_own_time_axis(flat_targets):
    mon = train("none", batch_first=True, flat_targets=flat_targets)
    assert CODE in codes(mon)
    assert {row[1] for row in mon.run.observed.window_borders} == {1}   # time on axis 1
    assert CODE not in codes(train("carried", batch_first=True, flat_targets=flat_targets))


def test_sequence_first_windows_are_read_along_axis_zero():
    mon = train("none", flat_targets=False)
    assert CODE in codes(mon)
    assert {row[1] for row in mon.run.observed.window_borders} == {0}


def test_a_gru_reset_at_every_window_is_named_and_its_carried_twin_is_not():
    assert CODE in codes(train("none", kind="gru"))
    assert CODE not in codes(train("carried", kind="gru"))


def test_too_few_consecutive_recorded_steps_say_nothing():
    """Recorded every 5 steps: no two recorded steps are consecutive windows."""
    mon = train("none", overhead=None, every=5)
    assert CODE not in codes(mon)


def test_a_saved_run_gives_the_same_finding(tmp_path):
    mon = train("none")
    path = tmp_path / "run.nndebug"
    mon.save(path)
    loaded = nd.load_run(str(path))
    assert loaded.run.observed.window_borders == mon.run.observed.window_borders
    assert CODE in {f.code for f in loaded.findings()}


def test_a_model_without_a_recurrent_layer_is_not_read():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(VOCAB, 16), nn.Linear(16, VOCAB))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for step, (x, y) in enumerate(windows(batchify(corpus()))):
            if step == 6:
                break
            loss = nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert mon.run.observed.window_borders == [] and CODE not in codes(mon)


# --- the rule on hand-made rows ------------------------------------------------------------
def _judge(rows):
    observed = Observed()
    observed.window_borders = rows
    return state_reset_between_contiguous_windows(SimpleNamespace(
        run=SimpleNamespace(observed=observed)))


def _rows(firsts, lasts, kinds, streams=None):
    return [(step, 0, streams or len(first), first, last, [("rnn", kind)])
            for step, (first, last, kind) in enumerate(zip(firsts, lasts, kinds))]


def test_the_rule_on_rows_that_continue():
    a, b, c = [1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]
    assert _judge(_rows([a, b, c], [b, c, a], ["none", "none", "none"])) is not None
    assert _judge(_rows([a, b, c], [b, c, a], ["none", "carried", "carried"])) is None
    assert _judge(_rows([a, b, c], [b, c, a], ["none", "none", "carried"])) is None
    assert _judge(_rows([a, b], [b, c], ["none", "none"])) is None      # one pair only


def test_the_rule_needs_several_streams_of_several_tokens():
    one = [7] * 5
    assert _judge(_rows([one, one, one], [one, one, one], ["none"] * 3)) is None
    a, b, c = [1, 2, 3], [4, 5, 6], [7, 8, 9]
    assert _judge(_rows([a, b, c], [b, c, a], ["none"] * 3)) is None   # three streams


# --- the two reproduced public bugs ----------------------------------------------------------
@pytest.mark.parametrize("name", ["char_lstm_state_zeroed_every_window",
                                  "word_lm_carries_hidden_output_but_not_cell_state"])
def test_the_real_bug_cases_are_named_and_their_twins_are_silent(name):
    case = importlib.import_module(f"benchmarks.real_bugs.{name}")
    assert CODE in case.EXPECTED
    assert CODE in codes(case.run())
    assert not codes(case.run(fixed=True))
