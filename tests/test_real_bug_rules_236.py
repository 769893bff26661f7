"""Real-bug batch 236 (character-level generators from first tutorials): a loop that scores
each step's output on its own, ``loss += criterion(output[:, t], tokens[:, t + 1])``, hands
the loss one target column at a time; the first, input column 1, is an exact copy of an input
column. For a causal model it is the next token of output 0, which has not read it: no
TARGETS_IN_INPUTS (the twin of char_rnn_tutorial_recurrence_without_nonlinearity drew one).
A bidirectional model's output 0 has read column 1, and a table whose column 1 is the label
has no positions at all: both stay named. Both frameworks."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as mnn
import nndebug as nd

COPY = "TARGETS_IN_INPUTS"
VOCAB, LENGTH, BATCH = 12, 10, 32


def _tokens(seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, VOCAB, size=(BATCH, LENGTH + 1))


def _codes(result):
    return {f.code for f in result.findings if f.severity in ("warning", "error")}


def _check(model, tokens, framework):
    """What check_dependencies says of the first target a step-by-step loop records."""
    inputs, first_target = tokens[:, :-1], tokens[:, 1]
    if framework == "torch":
        import torch
        inputs, first_target = torch.from_numpy(inputs), torch.from_numpy(first_target)
    else:
        inputs, first_target = mg.tensor(inputs), mg.tensor(first_target)
    return nd.check_dependencies(model, inputs, first_target)


def _torch_models():
    torch = pytest.importorskip("torch")
    from torch import nn

    class Tagger(nn.Module):
        def __init__(self, bidirectional=False):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, 16)
            self.rnn = nn.GRU(16, 16, batch_first=True, bidirectional=bidirectional)
            self.out = nn.Linear(32 if bidirectional else 16, VOCAB)

        def forward(self, x):
            return self.out(self.rnn(self.embed(x))[0])

    class Table(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(LENGTH, 16), nn.ReLU(), nn.Linear(16, VOCAB))

        def forward(self, x):
            return self.net(x.to(self.net[0].weight.dtype))   # the probe may run a double copy

    torch.manual_seed(0)
    return Tagger(), Tagger(bidirectional=True), Table()


class _MinigradTagger(mnn.Module):
    def __init__(self):
        super().__init__()
        self.embed = mnn.Embedding(VOCAB, 16)
        self.rnn = mnn.GRU(16, 16, batch_first=True)
        self.out = mnn.Linear(16, VOCAB)

    def forward(self, x):
        return self.out(self.rnn(self.embed(x))[0])


def test_a_causal_model_scored_step_by_step_is_no_copy_torch():
    causal, _, _ = _torch_models()
    result = _check(causal, _tokens(), "torch")
    assert COPY not in _codes(result)
    assert any("next token" in note for note in result.notes)


def test_a_causal_model_scored_step_by_step_is_no_copy_minigrad():
    mg.manual_seed(0)
    result = _check(_MinigradTagger(), _tokens(), "minigrad")
    assert COPY not in _codes(result)


def test_a_bidirectional_model_has_read_the_next_token():
    _, bidirectional, _ = _torch_models()
    assert COPY in _codes(_check(bidirectional, _tokens(), "torch"))


def test_a_table_whose_column_one_is_the_label_stays_named():
    _, _, table = _torch_models()
    assert COPY in _codes(_check(table, _tokens(), "torch"))


def test_the_unshifted_first_step_stays_named():
    """output[:, 0] scored against tokens[:, 0]: the copy of column 0, the bug itself."""
    torch = pytest.importorskip("torch")
    causal, _, _ = _torch_models()
    tokens = _tokens()
    result = nd.check_dependencies(causal, torch.from_numpy(tokens[:, :-1]),
                                   torch.from_numpy(tokens[:, 0]))
    assert COPY in _codes(result)
