"""Real-bug batch 77 (recurrent hidden-state handling): samples that meet only through the
batch's padding layout are read where they sit (``probes/dependencies/padding_layout.py``).

A packed encoder summarised at the padded output's last step (allennlp#1713) and one whose
lengths were sorted apart from its sequences (pytorch#144207) make each sample's output
depend on the OTHER samples' lengths: the batch-mixing probe saw BATCH_MIXING, and the
probes that name a reading ran the sample alone, where both slips vanish. Now the mixing is
recognised as going through the padding layout only, and each sample is probed in its batch:
OUTPUT_READS_FEW_TOKENS (the summary reads none of a shorter sequence's tokens) and
PADDING_LEAK (a sequence packed with a longer length reads its padding). Named on the planted
cases and on variants (a bidirectional GRU read at out[:, -1], lengths reversed with
enforce_sorted=False); silent on the fixed twins and on look-alikes: a packed LSTM read at
h_n, a packed LSTM read at each line's own last step, and a real mix-up of the batch (an
h_n reshaped with .view across samples) that must stay BATCH_MIXING.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import packed_encoder_final_state_read_at_padding as final_case  # noqa: E402,E501
from benchmarks.real_bugs import packed_lengths_sorted_apart_from_lines as lengths_case  # noqa: E402,E501
from benchmarks.real_bugs._common import padded_lines  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
FEW, LEAK, MIXING = "OUTPUT_READS_FEW_TOKENS", "PADDING_LEAK", "BATCH_MIXING"


def _codes(findings):
    return {f.code for f in findings if f.severity in ("warning", "error")}


def _lines(rows=16, seed=0, width=None):
    """``rows`` verse lines padded with id 0 to the whole set's longest line (every line of
    the batch then ends in padding), or to ``width`` positions."""
    ids, vocab = padded_lines()
    g = torch.Generator().manual_seed(seed)
    batch = ids[torch.randint(0, len(ids), (rows,), generator=g)]
    return (batch if width is None else batch[:, :width]), vocab


class PackedReader(nn.Module):
    """A packed (bi)LSTM/GRU classifier of padded id sequences; ``read`` picks the summary."""

    def __init__(self, vocab, read, rnn="lstm", bidirectional=False, dim=16, lengths=None):
        super().__init__()
        torch.manual_seed(0)
        self.read, self.lengths = read, lengths
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        kind = nn.LSTM if rnn == "lstm" else nn.GRU
        self.rnn = kind(dim, dim, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(dim * (2 if bidirectional else 1), 2)

    def forward(self, ids):
        lengths = (ids != 0).sum(1)
        if self.lengths == "reversed":
            lengths = lengths.flip(0)            # another sequence's length, unsorted
        packed = pack_padded_sequence(self.embed(ids), lengths, batch_first=True,
                                      enforce_sorted=False)
        out, state = self.rnn(packed)
        h_n = state[0] if isinstance(state, tuple) else state
        if self.read == "h_n":
            summary = torch.cat([h_n[-2], h_n[-1]], 1) if self.rnn.bidirectional else h_n[-1]
        elif self.read == "h_n_view":           # a real mix-up: (2, B, H) viewed as (B, 2H)
            summary = h_n.reshape(ids.shape[0], -1)
        else:
            padded, _ = pad_packed_sequence(out, batch_first=True)
            if self.read == "own_last":
                summary = padded[torch.arange(len(ids)), lengths - 1]
            else:                                # "padded_last": the batch's last step
                summary = padded[:, -1]
        return self.head(summary)


def _check(model, ids):
    return nd.check_dependencies(model, ids).findings


# --- the planted cases and their twins ---------------------------------------------------

def test_final_state_read_at_padding_is_named_and_its_twin_is_silent():
    bug = final_case.run(steps=12).findings()
    assert FEW in _codes(bug)
    assert MIXING not in _codes(bug)
    assert not _codes(final_case.run(fixed=True, steps=12).findings())


def test_lengths_sorted_apart_from_lines_is_named_and_its_twin_is_silent():
    bug = lengths_case.run(steps=12).findings()
    assert _codes(bug) & {LEAK, FEW}
    assert MIXING not in _codes(bug)
    assert not _codes(lengths_case.run(fixed=True, steps=12).findings())


# --- variants ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bidirectional_gru_read_at_the_padded_last_step(seed):
    ids, vocab = _lines(seed=seed)
    found = _check(PackedReader(vocab, "padded_last", rnn="gru", bidirectional=True), ids)
    assert FEW in _codes(found) and MIXING not in _codes(found)
    assert any(f.code == MIXING and f.severity == "info" for f in found)  # kept, as info


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lengths_reversed_with_enforce_sorted_false(seed):
    ids, vocab = _lines(seed=seed)
    found = _check(PackedReader(vocab, "h_n", lengths="reversed"), ids)
    assert _codes(found) & {LEAK, FEW} and MIXING not in _codes(found)


# --- look-alikes that must stay as they are ----------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("read,bidirectional", [("h_n", False), ("h_n", True),
                                                ("own_last", False)])
def test_packed_readers_at_each_sequences_own_end_are_silent(read, bidirectional, seed):
    ids, vocab = _lines(seed=seed)
    assert not _codes(_check(PackedReader(vocab, read, bidirectional=bidirectional), ids))


def test_a_real_mix_up_of_the_batch_stays_batch_mixing():
    ids, vocab = _lines(seed=3)
    found = _check(PackedReader(vocab, "h_n_view", bidirectional=True), ids)
    assert MIXING in _codes(found)
    assert not _codes(found) & {LEAK, FEW}


def test_mixing_through_padding_needs_padding_only_mixing():
    """The layout test itself: a real mix-up is not taken for a padding-layout one."""
    from nndebug.probes.dependencies.batch import Batch, to_tree
    from nndebug.probes.dependencies.padding_layout import mixing_through_padding
    from nndebug.probes.dependencies.runner import Runner
    from nndebug.adapters import adapt
    import numpy as np
    ids, vocab = _lines(seed=4, rows=8)
    for read, expected in (("padded_last", True), ("h_n_view", False), ("h_n", None)):
        model = PackedReader(vocab, read, bidirectional=(read == "h_n_view"))
        adapter = adapt(model)
        with adapter.forked_rng(0) as replay:
            runner = Runner(adapter, replay)
            batch = Batch(to_tree(adapter, ids))
            base = runner.forward(batch.rows(range(8)), 8, batch.length)[0]
            layout = mixing_through_padding(runner, batch, 8, base, np.random.default_rng(0))
        if expected is None:     # no mixing at all: the other samples' tokens never move it,
            assert layout is not None   # so the test alone says yes; the mixing probe gates it
        else:
            assert (layout is not None) == expected
