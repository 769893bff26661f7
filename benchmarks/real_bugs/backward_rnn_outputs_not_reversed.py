"""A hand-built bidirectional tagger: a forward LSTM reads the sentence, a second LSTM reads
it reversed, and the two outputs are concatenated word by word - but the backward LSTM's
output is left in reversed order, so word t is tagged from the forward state at t beside
the backward state of word T-1-t. Every word but the middle one gets the right-hand context
of some other word; tags that depend on what follows cannot be learned.

Reported: "Issue in combining forward and backward LSTM outputs" -
https://github.com/ContextScout/gcn_ner/issues/10 ("Shouldn't the self.enc_cell_bw reversed
before the concat of forward and backward outputs?"; the maintainer: "Well spotted! Yes
there should be a tf.reverse before line 85"). Here sequences of random ids, each word
tagged with whether the NEXT word's id is smaller, the same or larger (right-hand context
only the backward LSTM has). Fix: flip the backward output back along time before
concatenating.
"""
import torch
from torch import nn

TITLE = "Issue in combining forward and backward LSTM outputs"
LINK = "https://github.com/ContextScout/gcn_ner/issues/10"
EXPECTED = ("REVERSED_STEPS_NOT_REALIGNED",)
STEPS = 150
VOCAB, LENGTH, TAGS = 12, 16, 3


def tagged_sequences(steps, batch_size=32, seed=0):
    """(ids (B, LENGTH), tags (B, LENGTH)): each word is tagged 0, 1 or 2 as the next word's
    id is smaller, the same or larger; the last word (no next word) with 1."""
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        ids = torch.randint(1, VOCAB, (batch_size, LENGTH), generator=g)
        step = torch.sign(ids[:, 1:] - ids[:, :-1]) + 1
        tags = torch.cat([step, torch.ones(batch_size, 1, dtype=torch.int64)], 1)
        yield ids, tags


class TwoLSTMTagger(nn.Module):
    def __init__(self, realign, dim=32):
        super().__init__()
        self.realign = realign
        self.embed = nn.Embedding(VOCAB, dim)
        self.forward_lstm = nn.LSTM(dim, dim, batch_first=True)
        self.backward_lstm = nn.LSTM(dim, dim, batch_first=True)
        self.tagger = nn.Linear(2 * dim, TAGS)

    def forward(self, ids):
        words = self.embed(ids)
        ahead, _ = self.forward_lstm(words)
        behind, _ = self.backward_lstm(words.flip(1))   # reads the sentence end to start
        if self.realign:
            behind = behind.flip(1)            # back in the sentence's order
        # BUG when not realign: word t sits beside the backward state of word T-1-t
        return self.tagger(torch.cat([ahead, behind], -1))


def tag_loss(logits, tags):
    return nn.functional.cross_entropy(logits.reshape(-1, TAGS), tags.reshape(-1))


def run(fixed=False, steps=STEPS, **watch):
    from benchmarks.real_bugs._common import train_watched
    torch.manual_seed(0)
    model = TwoLSTMTagger(realign=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, tag_loss, tagged_sequences(steps), **watch)
