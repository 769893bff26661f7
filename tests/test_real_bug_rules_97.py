"""Real-bug batch 97 (models ported from Keras or TensorFlow to PyTorch): log-probabilities
given to an NLL loss that were normalised over the batch axis instead of the classes -
``F.softmax(scores)`` without ``dim`` on (batch, time, vocab) scores takes PyTorch's implicit
dim 0, where TensorFlow's softmax takes the last axis (LOG_PROBS_NORMALISED_OVER_BATCH, from
the sums of exp(input) over dim 1 and dim 0 measured on the first calls:
``monitor/log_prob_axes.py``, ``rules/log_prob_axes.py``). Variants: NLLLoss as a module,
an explicit dim=0 on a 2-D classifier's scores, a GRU language model, SGD. Fixed twins
silent, and the healthy look-alikes a careless rule would flag: log_softmax over the classes
of 3-D scores, a contrastive loss normalising each column of a square similarity matrix over
the batch, raw logits into NLLLoss (NLL_ON_PROBABILITIES' case, not this one), a batch of one.
"""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import softmax_without_dim_on_sequence_scores as implicit_dim  # noqa: E402,E501
from benchmarks.real_bugs._common import (batches, characters, classification,  # noqa: E402
                                          next_character_batches)
from nndebug.monitor import log_prob_axes  # noqa: E402
from nndebug.observed import LossCall  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "LOG_PROBS_NORMALISED_OVER_BATCH"
STEPS = 40


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _char_run(log_probs_of, steps=STEPS, recurrent=False, optimizer="adam", module_loss=False):
    """A next-character model whose (batch, time, vocab) scores become log-probabilities by
    ``log_probs_of(scores)``, trained with NLL over dim 1 = classes."""
    torch.manual_seed(0)
    ids, vocab = characters()

    class CharModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, 32)
            self.rnn = nn.GRU(32, 32, batch_first=True) if recurrent else None
            self.out = nn.Linear(32, vocab)

        def forward(self, x):
            h = torch.tanh(self.embed(x))
            if self.rnn is not None:
                h, _ = self.rnn(h)
            return self.out(h)

    model = CharModel()
    opt = (torch.optim.Adam(model.parameters(), lr=3e-3) if optimizer == "adam"
           else torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9))
    nll = nn.NLLLoss() if module_loss else F.nll_loss
    with nd.watch(model, opt) as mon:
        for inputs, targets in next_character_batches(ids, steps, 16):
            opt.zero_grad()
            loss = nll(log_probs_of(model(inputs)).transpose(1, 2), targets)
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def _implicit(scores):
    with pytest.warns(UserWarning):
        return torch.log(F.softmax(scores))       # implicit dim: 0 for a 3-D tensor


# --- the planted case and its twin ----------------------------------------------------------

def test_planted_case_is_named_and_its_twin_is_silent():
    found = [f for f in implicit_dim.run(steps=STEPS).findings() if f.code == CODE]
    assert found and found[0].severity == "error"
    assert found[0].evidence["batch_mass_error"] < 1e-3 < 0.05 < found[0].evidence[
        "class_mass_error"]
    assert "dim 0" in found[0].message
    assert not _codes(implicit_dim.run(fixed=True, steps=STEPS))


# --- variants ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["gru_sgd", "module_loss", "log_softmax_dim0"])
def test_variants_are_named(kind):
    if kind == "gru_sgd":
        mon = _char_run(_implicit, recurrent=True, optimizer="sgd")
    elif kind == "module_loss":
        mon = _char_run(_implicit, module_loss=True)
    else:
        mon = _char_run(lambda s: F.log_softmax(s, dim=0))
    assert CODE in _codes(mon)


def test_a_classifier_with_softmax_dim0_is_named():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10), nn.Softmax(dim=0))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, opt) as mon:
        for xb, yb in batches(x, y, STEPS, batch_size=48):
            opt.zero_grad()
            loss = F.nll_loss(torch.log(model(xb)), yb)
            loss.backward()
            opt.step()
            mon.step(loss)
    assert CODE in _codes(mon)


# --- healthy look-alikes ------------------------------------------------------------------------

@pytest.mark.parametrize("recurrent", [False, True])
def test_log_softmax_over_the_classes_is_silent(recurrent):
    mon = _char_run(lambda s: F.log_softmax(s, dim=-1), recurrent=recurrent)
    assert CODE not in _codes(mon)
    measured = [c for c in mon.run.observed.loss_calls if c.class_mass_error is not None]
    assert measured and all(c.class_mass_error < 1e-4 for c in measured)


def test_contrastive_columns_over_a_square_similarity_matrix_are_silent():
    """Normalising each column of an (N, N) similarity matrix over the batch is the loss."""
    torch.manual_seed(0)
    x, _ = classification()
    encoder = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16))
    opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    with nd.watch(encoder, opt) as mon:
        for step in range(STEPS):
            xb = x[step * 32 % 1700:step * 32 % 1700 + 32]
            a = F.normalize(encoder(xb + 0.05 * torch.randn_like(xb)), dim=1)
            b = F.normalize(encoder(xb + 0.05 * torch.randn_like(xb)), dim=1)
            sim = a @ b.t() / 0.1
            opt.zero_grad()
            loss = F.nll_loss(F.log_softmax(sim, dim=0), torch.arange(len(xb)))
            loss.backward()
            opt.step()
            mon.step(loss)
    assert CODE not in _codes(mon)


def test_raw_logits_into_nll_are_not_this_cause():
    mon = _char_run(lambda s: s)
    codes = _codes(mon)
    assert CODE not in codes and "NLL_ON_PROBABILITIES" in codes


def test_a_batch_of_one_is_not_measured():
    block = torch.log_softmax(torch.randn(1, 5, 7), dim=0)
    assert log_prob_axes.take({}, (1, 5, 7)) == (None, None)

    class Packet:
        added = []

        def add(self, key, value):
            self.added.append(key)
    log_prob_axes.pack(Packet(), "nll_loss", block, 0)
    log_prob_axes.pack(Packet(), "nll_loss", torch.zeros(4, 5, 7), log_prob_axes.CALLS_MEASURED)
    log_prob_axes.pack(Packet(), "cross_entropy", torch.zeros(4, 5, 7), 0)
    assert Packet.added == []
    log_prob_axes.pack(Packet(), "NLLLoss", torch.zeros(4, 5, 7), 0)
    assert Packet.added == [log_prob_axes.KEY]


# --- the measurement, the rule on hand-made calls, and the calls read back ---------------------

def test_the_two_sums_are_measured_on_the_host():
    scores = torch.randn(6, 4, 3)
    over_batch = torch.log_softmax(scores, dim=0)
    values = {log_prob_axes.KEY: over_batch.numpy().ravel()}
    class_error, batch_error = log_prob_axes.take(values, (6, 4, 3))
    assert batch_error < 1e-5 and class_error > 0.05
    values = {log_prob_axes.KEY: torch.log_softmax(scores, dim=1).numpy().ravel()}
    class_error, batch_error = log_prob_axes.take(values, (6, 4, 3))
    assert class_error < 1e-5 and batch_error > 0.05


def _rule_on(calls):
    from nndebug.rules import log_prob_axes as rules
    mon = _char_run(lambda s: F.log_softmax(s, dim=-1), steps=8)
    mon.run.observed.loss_calls[:] = calls
    from nndebug.rules.context import Context
    return rules.log_probs_normalised_over_batch(Context(mon.run))


def _call(step, class_error, batch_error, shape=(32, 63, 16), loss="nll_loss"):
    return LossCall(step=step, loss=loss, output_shape=shape, target_shape=(32, 16),
                    output_min=-5.0, output_max=-1.0, class_mass_error=class_error,
                    batch_mass_error=batch_error)


def test_rule_needs_every_measured_call_and_two_of_them():
    assert _rule_on([_call(0, 1.2, 1e-7), _call(1, 1.3, 2e-7)]).code == CODE
    assert _rule_on([_call(0, 1.2, 1e-7)]) is None                        # one call only
    assert _rule_on([_call(0, 1.2, 1e-7), _call(1, 1e-7, 0.6)]) is None   # they disagree
    assert _rule_on([_call(0, 1.2, 0.01), _call(1, 1.3, 0.01)]) is None   # neither axis
    assert _rule_on([_call(0, 1.2, 1e-7, (32, 32)), _call(1, 1.3, 1e-7, (32, 32))]) is None
    assert _rule_on([_call(0, 1.2, 1e-7, loss="kl_div"),
                     _call(1, 1.3, 1e-7, loss="kl_div")]) is None
    assert _rule_on([_call(0, None, None), _call(1, None, None)]) is None


def test_calls_are_saved_and_read_back(tmp_path):
    mon = implicit_dim.run(steps=STEPS)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    saved = [(c.class_mass_error, c.batch_mass_error) for c in loaded.run.observed.loss_calls]
    assert saved == [(c.class_mass_error, c.batch_mass_error)
                     for c in mon.run.observed.loss_calls]
    assert CODE in {f.code for f in loaded.findings()}


# --- minigrad: the same measurement through its NLLLoss module ---------------------------------

@pytest.mark.parametrize("dim", [0, 1])
def test_minigrad_log_softmax_over_the_batch_is_named(dim):
    import numpy as np

    import minigrad as mg
    import minigrad.nn.functional as MF
    from minigrad import nn as mnn
    x, y = classification()
    images, labels = x.numpy(), y.numpy()
    np.random.seed(0)
    model = mnn.Sequential(mnn.Linear(64, 32), mnn.ReLU(), mnn.Linear(32, 10))
    opt = mg.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = mnn.NLLLoss()
    with nd.watch(model, opt) as mon:
        for step in range(STEPS):
            start = step * 48 % 1700
            xb, yb = mg.Tensor(images[start:start + 48]), mg.Tensor(labels[start:start + 48])
            opt.zero_grad()
            loss = loss_fn(MF.log_softmax(model(xb), dim=dim), yb)
            loss.backward()
            opt.step()
            mon.step(loss)
    assert (CODE in _codes(mon)) == (dim == 0)
