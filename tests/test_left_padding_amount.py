"""PADDING_LEAK on left-padded batches (``probes/dependencies/padding_amount.py``, real-bug
batch 291, tloen/alpaca-lora#315): a model that numbers positions along the padded row
(``arange``) puts a text's first token where its batch's longest text leaves it, so cutting
the left padding off moves the outputs at real positions; numbering them from the mask
(0 at the first real token) does not. Asked of next-token models only: an encoder read
left-padded with positions from ``arange`` is left alone. Right padding is read as before.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
VOCAB, LENGTH, BATCH = 20, 9, 6


class PositionalTagger(nn.Module):
    """Token and learned absolute position embeddings, one score per position; padded keys
    are masked out of a causal running mean, so only the positions can carry the padding
    (and no position reads a later one: a next-token model)."""

    def __init__(self, positions_from_mask):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, 8)
        self.positions = nn.Embedding(LENGTH, 8)
        self.head = nn.Linear(8, 3)
        self.positions_from_mask = positions_from_mask

    def forward(self, ids, attention_mask):
        if self.positions_from_mask:
            where = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        else:
            where = torch.arange(ids.shape[1])[None].expand_as(ids)
        h = (self.tokens(ids) + self.positions(where)) * attention_mask[..., None]
        running = h.cumsum(1) / attention_mask.cumsum(1).clamp(min=1)[..., None]
        return self.head(running)


def _batch(left):
    """Token ids (B, T) and the 0/1 mask: real lengths 3..T, padded with id 0."""
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1, VOCAB, (BATCH, LENGTH), generator=g)
    mask = torch.zeros(BATCH, LENGTH, dtype=torch.long)
    for row, real in enumerate(range(3, 3 + BATCH)):
        real = min(real, LENGTH)
        span = slice(LENGTH - real, LENGTH) if left else slice(0, real)
        mask[row, span] = 1
    return ids * mask, mask


def _leak(model, left, causal=True):
    ids, mask = _batch(left)
    result = nd.check_dependencies(model, (ids, mask), causal=causal)
    return [f for f in result.findings if f.code == "PADDING_LEAK" and f.severity != "info"]


def test_positions_counted_along_a_left_padded_row_leak():
    torch.manual_seed(0)
    found = _leak(PositionalTagger(positions_from_mask=False), left=True)
    assert found and found[0].evidence["padding_side"] == "left"


def test_positions_counted_from_the_mask_do_not():
    torch.manual_seed(0)
    assert _leak(PositionalTagger(positions_from_mask=True), left=True) == []


def test_a_left_padded_encoder_is_left_alone():
    torch.manual_seed(0)
    assert _leak(PositionalTagger(positions_from_mask=False), left=True, causal=None) == []


def test_right_padding_is_read_as_before():
    torch.manual_seed(0)
    assert _leak(PositionalTagger(positions_from_mask=False), left=False) == []
