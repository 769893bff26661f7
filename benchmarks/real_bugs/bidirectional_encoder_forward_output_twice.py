"""A bidirectional encoder built from a forward and a backward LSTM whose outputs are meant to
be concatenated word by word, but the concatenation takes the forward output twice: the
backward LSTM runs on every batch and its output is thrown away. The tagger sees only the
left-hand context (twice over), and the backward LSTM's weights never receive a gradient.

Reported: "Typo in bidirectional encoder?" -
https://github.com/ematvey/tensorflow-seq2seq-tutorials/issues/1 ("the bidirectional
encoder outputs a concatenation of the forward output with itself. Should this be a
concatenation of the forward and backward outputs?"; the author: "It is a typo. Thanks for
noticing! Fixed it."). Here sequences of random ids, each word tagged with whether the next
word's id is smaller, the same or larger (right-hand context). Fix: concatenate the forward
and the (realigned) backward outputs.
"""
import torch
from torch import nn

TITLE = "Typo in bidirectional encoder?"
LINK = "https://github.com/ematvey/tensorflow-seq2seq-tutorials/issues/1"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150
VOCAB, LENGTH, TAGS = 12, 16, 3


def tagged_sequences(steps, batch_size=32, seed=3):
    """(ids (B, LENGTH), tags (B, LENGTH)): tag 0, 1 or 2 as the next word's id is smaller,
    the same or larger; the last word (no next word) 1."""
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        ids = torch.randint(1, VOCAB, (batch_size, LENGTH), generator=g)
        step = torch.sign(ids[:, 1:] - ids[:, :-1]) + 1
        yield ids, torch.cat([step, torch.ones(batch_size, 1, dtype=torch.int64)], 1)


class BidirectionalEncoderTagger(nn.Module):
    def __init__(self, both_directions, dim=32):
        super().__init__()
        self.both_directions = both_directions
        self.embed = nn.Embedding(VOCAB, dim)
        self.encoder_fw = nn.LSTM(dim, dim, batch_first=True)
        self.encoder_bw = nn.LSTM(dim, dim, batch_first=True)
        self.tagger = nn.Linear(2 * dim, TAGS)

    def forward(self, ids):
        words = self.embed(ids)
        fw_outputs, _ = self.encoder_fw(words)
        bw_outputs, _ = self.encoder_bw(words.flip(1))
        bw_outputs = bw_outputs.flip(1)
        if self.both_directions:
            outputs = torch.cat([fw_outputs, bw_outputs], -1)
        else:
            outputs = torch.cat([fw_outputs, fw_outputs], -1)   # BUG: forward twice
        return self.tagger(outputs)


def tag_loss(logits, tags):
    return nn.functional.cross_entropy(logits.reshape(-1, TAGS), tags.reshape(-1))


def run(fixed=False, steps=STEPS, **watch):
    from benchmarks.real_bugs._common import train_watched
    torch.manual_seed(0)
    model = BidirectionalEncoderTagger(both_directions=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, tag_loss, tagged_sequences(steps), **watch)
