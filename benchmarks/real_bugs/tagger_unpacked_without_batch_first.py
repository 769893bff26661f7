"""A character tagger that packs its batch-first input with ``batch_first=True`` but
unpacks the LSTM's output with ``pad_packed_sequence``'s default ``batch_first=False``: the
output comes back (time, batch, hidden), is flattened as if it were (batch, time, hidden),
and every tag is scored against the output of another character in another line.

Reported: "RNN sequence padding with batch_first" - https://github.com/pytorch/pytorch/issues/1176
("using batch_first with pack_padded_Sequence and pad_packed_sequence with an LSTM/GRU
doesn't give me the expected output shape ... Size 20 x 10 x 50 instead of 10 x 20 x 50";
the answer: "`pad_packed_sequence(packed_h, batch_first=True)` does what you want"). A tagger
that flattens the output for its loss gets no shape error: (time x batch) rows are as many
as (batch x time) ones. Here the sonnets' verse lines, padded with id 0, each character
tagged letter / space / punctuation, the padding left out of the loss with ignore_index.
Fix: `pad_packed_sequence(packed_out, batch_first=True)`.

Measured (150 steps, 27 held-out lines): held-out tag accuracy 0.79 with the bug (the share
of letters), 1.00 fixed.
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from benchmarks.real_bugs._common import SONNETS, padded_lines, train_watched

TITLE = "RNN sequence padding with batch_first"
LINK = "https://github.com/pytorch/pytorch/issues/1176"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150
HELD_OUT = 27
PAD_TAG = -100


def character_tags(ids):
    """0 letter, 1 space, 2 punctuation; the padding PAD_TAG (left out of the loss).
    ``padded_lines`` numbers the lines' characters 1.. in sorted order."""
    with open(SONNETS, encoding="utf-8") as handle:
        lines = [line for line in handle.read().splitlines() if len(line) >= 20]
    chars = sorted(set("".join(lines)))
    kind = torch.tensor([2] + [0 if c.isalpha() else 1 if c == " " else 2 for c in chars])
    tags = kind[ids]
    tags[ids == 0] = PAD_TAG
    return tags


class Tagger(nn.Module):
    def __init__(self, vocab, unpack_batch_first, dim=32):
        super().__init__()
        self.unpack_batch_first = unpack_batch_first
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.tag = nn.Linear(dim, 3)

    def forward(self, ids):                        # ids: (batch, time), 0 = padding
        lengths = (ids != 0).sum(1)
        packed = pack_padded_sequence(self.embed(ids), lengths, batch_first=True,
                                      enforce_sorted=False)
        out, _ = self.lstm(packed)
        # BUG when not unpack_batch_first: out comes back (time, batch, dim)
        out, _ = pad_packed_sequence(out, batch_first=self.unpack_batch_first)
        return self.tag(out).reshape(-1, 3)        # read as (batch * time, tags)


def line_batches(ids, tags, steps, batch_size=32):
    g = torch.Generator().manual_seed(torch.initial_seed() + 1)   # moves with the seed
    for _ in range(steps):
        rows = torch.randint(0, len(ids), (batch_size,), generator=g)
        longest = int((ids[rows] != 0).sum(1).max())
        yield ids[rows, :longest], tags[rows, :longest].reshape(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    tags = character_tags(ids)
    model = Tagger(vocab, unpack_batch_first=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = train_watched(model, optimizer, nn.functional.cross_entropy,
                        line_batches(ids[:-HELD_OUT], tags[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        held_ids, held_tags = ids[-HELD_OUT:], tags[-HELD_OUT:]
        longest = int((held_ids != 0).sum(1).max())
        truth = held_tags[:, :longest].reshape(-1)
        guess = model(held_ids[:, :longest]).argmax(1)
        kept = truth != PAD_TAG
        mon.accuracy = round(float((guess[kept] == truth[kept]).float().mean()), 3)
    return mon
