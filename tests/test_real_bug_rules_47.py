"""Real-bug batch 47 (sequence models): BATCH_MIXING reads per-position outputs flattened for
the loss. A tagger or a language model that returns ``logits.view(-1, V)`` - (batch * time,
V) - used to be skipped by every dependency probe (one row per sample was required); when
its targets are flattened per position too, it is now folded back to (batch, time, V),
sample-major, as those targets already were (rows that are not positions stay unread).
So a time-major output flattened as if it were batch-major (``pad_packed_sequence`` without
``batch_first=True`` after a batch-first pack, pytorch/pytorch#1176) is named, and the
healthy layouts stay silent: a batch-first output flattened as it is, the same through
packing (whose outputs change length with the longest sample), and a time-major model fed
time-major data (PyTorch's word-language-model layout: its dimension 0 is time by design)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence  # noqa: E402

from benchmarks.real_bugs import tagger_unpacked_without_batch_first as tagger  # noqa: E402
from nndebug.probes.dependencies import check_dependencies  # noqa: E402
from nndebug.probes.dependencies.measure import common_part  # noqa: E402
from nndebug.probes.dependencies.runner import folded_per_sample  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
VOCAB, TAGS = 12, 3


def _codes(result):
    return {f.code for f in result.findings if f.severity in PROBLEMS}


def _padded_ids(batch=6, longest=9, seed=0):
    """Token ids 1.. with 0 padding at the end of each row, lengths 4..longest."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, VOCAB, (batch, longest), generator=g)
    lengths = torch.randint(4, longest + 1, (batch,), generator=g)
    lengths[0] = longest
    ids[torch.arange(longest)[None, :] >= lengths[:, None]] = 0
    return ids


class PackedTagger(nn.Module):
    """Packs batch-first, unpacks with or without batch_first, returns flat (rows, tags)."""
    def __init__(self, unpack_batch_first):
        super().__init__()
        self.unpack_batch_first = unpack_batch_first
        self.embed = nn.Embedding(VOCAB, 8, padding_idx=0)
        self.lstm = nn.LSTM(8, 8, batch_first=True)
        self.tag = nn.Linear(8, TAGS)

    def forward(self, ids):
        packed = pack_padded_sequence(self.embed(ids), (ids != 0).sum(1), batch_first=True,
                                      enforce_sorted=False)
        out, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=self.unpack_batch_first)
        return self.tag(out).reshape(-1, TAGS)


class FlatTagger(nn.Module):
    """A batch-first LSTM over float features, its per-step outputs flattened for the loss;
    ``time_major`` flattens them time-first (the wrong order for batch-first targets)."""
    def __init__(self, time_major):
        super().__init__()
        self.time_major = time_major
        self.lstm = nn.LSTM(5, 8, batch_first=True)
        self.tag = nn.Linear(8, TAGS)

    def forward(self, x):
        out = self.tag(self.lstm(x)[0])               # (batch, time, tags)
        if self.time_major:
            out = out.transpose(0, 1)                  # BUG: (time, batch, tags) flattened
        return out.reshape(-1, TAGS)


class TimeMajorLM(nn.Module):
    """PyTorch's word-language-model layout: (time, batch) ids in, (time * batch, V) out."""
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 8)
        self.lstm = nn.LSTM(8, 8)                      # batch_first=False, fed (T, B)
        self.decode = nn.Linear(8, VOCAB)

    def forward(self, ids):
        return self.decode(self.lstm(self.embed(ids))[0]).view(-1, VOCAB)


# --- the pieces ----------------------------------------------------------------------------
def test_only_targets_flattened_per_position_let_outputs_fold():
    from nndebug.probes.dependencies import _flattened_per_position
    from nndebug.probes.dependencies.batch import Batch
    ids = Batch(_padded_ids().numpy())                  # 6 samples of 9 positions
    assert _flattened_per_position(torch.zeros(6 * 9).numpy(), ids)
    assert _flattened_per_position(torch.zeros(6 * 4).numpy(), ids)   # trimmed to the longest
    assert not _flattened_per_position(torch.zeros(6).numpy(), ids)   # one per sample
    assert not _flattened_per_position(torch.zeros(6 * 10).numpy(), ids)   # more than held
    assert not _flattened_per_position(None, ids)
    images = Batch(torch.zeros(6, 3, 4, 4).numpy())
    assert not _flattened_per_position(torch.zeros(12).numpy(), images)
    table = Batch(torch.zeros(6, 5).numpy())           # float rows: no positions
    assert not _flattened_per_position(torch.zeros(12).numpy(), table)


def test_a_flattened_output_is_folded_sample_major():
    flat = torch.arange(24.).reshape(12, 2).numpy()    # 3 samples x 4 positions x 2
    folded = folded_per_sample(flat, 3)
    assert folded.shape == (3, 4, 2) and (folded[1, 0] == flat[4]).all()
    assert folded_per_sample(flat, 12) is flat          # already one row per sample
    assert folded_per_sample(flat[:10], 3).shape == (10, 2)   # not a multiple: left alone


def test_outputs_of_two_lengths_are_compared_where_both_have_them():
    a, b = torch.zeros(4, 7, 3).numpy(), torch.ones(4, 5, 3).numpy()
    cut_a, cut_b = common_part(a, b)
    assert cut_a.shape == cut_b.shape == (4, 5, 3)
    assert common_part(a, a[:2])[0].shape == (4, 7, 3)       # other rows: as they are


# --- the planted bugs ---------------------------------------------------------------------
def _flat_tags(ids):
    """One tag per position, flattened as the loss takes them, padding -100."""
    tags = ids % TAGS
    tags[ids == 0] = -100
    return tags.reshape(-1)


def test_a_time_major_unpack_flattened_as_batch_major_mixes_samples():
    torch.manual_seed(0)
    ids = _padded_ids()
    result = check_dependencies(PackedTagger(unpack_batch_first=False), ids, _flat_tags(ids))
    assert "BATCH_MIXING" in _codes(result)
    assert "pad_packed_sequence" in next(f.fix for f in result.findings
                                         if f.code == "BATCH_MIXING")


def test_a_float_input_tagger_flattened_time_first_mixes_samples():
    torch.manual_seed(0)
    x, tags = torch.randn(6, 7, 5), torch.randint(0, TAGS, (6 * 7,))
    assert "BATCH_MIXING" in _codes(check_dependencies(FlatTagger(time_major=True), x, tags))


def test_watch_names_the_reported_tagger():
    mon = tagger.run(fixed=False, steps=12)
    assert "BATCH_MIXING" in {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- healthy look-alikes stay silent ------------------------------------------------------
def test_a_batch_first_unpack_flattened_as_it_is_is_silent():
    torch.manual_seed(0)
    ids = _padded_ids()
    result = check_dependencies(PackedTagger(unpack_batch_first=True), ids, _flat_tags(ids))
    assert not _codes(result) and "batch mixing" in result.checked


def test_a_float_input_tagger_flattened_batch_first_is_silent():
    torch.manual_seed(0)
    x, tags = torch.randn(6, 7, 5), torch.randint(0, TAGS, (6 * 7,))
    result = check_dependencies(FlatTagger(time_major=False), x, tags)
    assert not _codes(result) and "batch mixing" in result.checked


def test_a_time_major_language_model_on_time_major_data_is_not_called_mixing():
    torch.manual_seed(0)
    ids = torch.randint(0, VOCAB, (9, 6))              # (time, batch), as the example feeds it
    result = check_dependencies(TimeMajorLM(), ids, torch.randint(0, VOCAB, (9 * 6,)))
    assert "BATCH_MIXING" not in _codes(result)


class TwoViews(nn.Module):
    """Both views of every sample stacked view-major, (2 * batch, features): rows that are
    not positions, each sample's pair read by a contrastive loss on purpose."""
    def __init__(self):
        super().__init__()
        self.encode = nn.Linear(5, 4)

    def forward(self, x):
        return torch.cat([self.encode(x), self.encode(x.flip(1))])


def test_rows_that_are_not_positions_are_not_folded():
    torch.manual_seed(0)
    x = torch.randn(6, 5)
    with pytest.raises(ValueError, match="one row per sample"):   # as before: not probed
        check_dependencies(TwoViews(), x, torch.arange(12))


def test_watch_stays_silent_on_the_fixed_tagger():
    mon = tagger.run(fixed=True, steps=12)
    assert not {f.code for f in mon.findings() if f.severity in PROBLEMS}
