"""PADDING_LEAK's padding-amount probe on sentence pairs (``probes/dependencies/
padding_amount.py``; real-bug batch 314).

The probe cuts a right-padded sample's padding off and compares the outputs. Every array of
the batch's length used to be cut alike (so a mask stays aligned); a pair model's second
text lost its own words that way, and a question-pair encoder that hides its padding was
named. Planted: the same pair encoder pooling over its padding is still named; a mask that
travels with the ids is still cut with them.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
LENGTH, WORDS = 12, 30


class PairEncoder(nn.Module):
    def __init__(self, masked):
        super().__init__()
        self.masked = masked
        self.embed = nn.Embedding(WORDS, 8, padding_idx=0)
        self.tokens = nn.Linear(8, 8)
        self.head = nn.Linear(16, 2)

    def encode(self, ids):
        out = torch.tanh(self.tokens(self.embed(ids)))
        if not self.masked:
            return out.mean(1)                   # the padding's tanh(bias) joins the mean
        keep = (ids != 0).float().unsqueeze(-1)
        return (out * keep).sum(1) / keep.sum(1)

    def forward(self, first, second):
        return self.head(torch.cat([self.encode(first), self.encode(second)], 1))


class MaskedEncoder(nn.Module):
    """Ids and their attention mask (1 = real), pooled over the mask, or over everything."""
    def __init__(self, masked):
        super().__init__()
        self.masked = masked
        self.embed = nn.Embedding(WORDS, 8, padding_idx=0)
        self.tokens = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, ids, attention_mask):
        out = torch.tanh(self.tokens(self.embed(ids)))
        keep = attention_mask.float().unsqueeze(-1) if self.masked else torch.ones_like(out[..., :1])
        return self.head((out * keep).sum(1) / keep.sum(1))


def _padded(lengths, seed):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.zeros(len(lengths), LENGTH, dtype=torch.long)
    for row, n in enumerate(lengths):
        ids[row, :n] = torch.randint(1, WORDS, (n,), generator=generator)
    return ids


def _leak(model, inputs):
    torch.manual_seed(0)
    found = nd.check_dependencies(model, inputs).findings
    return any(f.code == "PADDING_LEAK" for f in found)


def test_a_pair_encoder_that_hides_its_padding_is_not_named():
    first, second = _padded([3, 12, 7, 5], 0), _padded([10, 4, 12, 9], 1)
    torch.manual_seed(0)
    assert not _leak(PairEncoder(masked=True), (first, second))


def test_a_pair_encoder_pooling_over_its_padding_is_named():
    first, second = _padded([3, 12, 7, 5], 0), _padded([10, 4, 12, 9], 1)
    torch.manual_seed(0)
    assert _leak(PairEncoder(masked=False), (first, second))


@pytest.mark.parametrize("masked, named", [(True, False), (False, True)])
def test_a_mask_travelling_with_the_ids_is_cut_with_them(masked, named):
    ids = _padded([3, 12, 7, 5], 0)
    torch.manual_seed(0)
    assert _leak(MaskedEncoder(masked), (ids, (ids != 0).long())) is named
