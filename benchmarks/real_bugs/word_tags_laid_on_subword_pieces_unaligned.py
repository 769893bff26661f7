"""A token tagger for subword-tokenised text whose training labels are the WORD-level tags
copied position by position onto the PIECE sequence: the n-th piece gets the n-th word's
tag. After the first word that splits into several pieces, every label belongs to an
earlier word, and the shift grows along the sentence; the tags past the number of words
are padding (ignored). Nothing errors (the label row is padded to the piece row's length),
the loss falls (neighbouring words often share a topic, so a shifted tag is often still
right), and the tagger learns each piece's tag blurred with its neighbours'.

Reported: "Problem with wordpiece tokenization" -
https://github.com/google-research/bert/issues/560 (a NER user asked which label a word
split into several WordPiece pieces gets, and pointed to a public BERT-NER tutorial whose
"entity labels and tokens are mis-matched"; the answers: tokenise each word on its own,
keep the original-to-tokenised alignment, give the word's label to its first piece and
an ignored label ('X') to the rest, as the BERT README and paper do). Here 48 words in
four topics plus fillers (benchmarks/real_bugs/_txt164.py), each split into 1-3 pieces of
its own; a word's tag is its topic or "filler"; an embedding + GRU tagger over the pieces
(left to right: the end padding never reaches a real piece), Adam. Fix: each word's tag
on its first piece, -100 on its other pieces.

Measured (word-level tag accuracy on 400 held-out sentences, read at each word's first
piece): seed 0, 0.70 for the bug against 1.00 for the fixed twin; seeds shifted by 1000,
0.80 against 1.00.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._txt164 import FILLER_TAG, piece_table, sentences, tokenise, \
    word_topic

TITLE = "Problem with wordpiece tokenization"
LINK = "https://github.com/google-research/bert/issues/560"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
IGNORE = -100


class Tagger(nn.Module):
    def __init__(self, pieces, dim=32, tags=FILLER_TAG + 1):
        super().__init__()
        self.embed = nn.Embedding(pieces, dim, padding_idx=0)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, tags)

    def forward(self, ids):
        hidden, _ = self.gru(self.embed(ids))
        return self.out(hidden)


def encode(texts, table, fixed):
    """Padded piece ids, training labels, and (row, first-piece position, word tag) of each
    word for scoring."""
    rows = [tokenise(words, table) for words in texts]
    length = max(len(p) for p, _ in rows)
    ids = torch.zeros(len(texts), length, dtype=torch.int64)
    labels = torch.full((len(texts), length), IGNORE, dtype=torch.int64)
    firsts = []
    for r, ((pieces, word_index), words) in enumerate(zip(rows, texts)):
        ids[r, :len(pieces)] = torch.tensor(pieces)
        tags = [word_topic(w) for w in words]
        if fixed:      # the word's tag on its first piece, the rest ignored
            for position, w in enumerate(word_index):
                if position == 0 or word_index[position - 1] != w:
                    labels[r, position] = tags[w]
        else:          # BUG: the word tags laid on the pieces one per position
            labels[r, :len(tags)] = torch.tensor(tags)
        for position, w in enumerate(word_index):
            if position == 0 or word_index[position - 1] != w:
                firsts.append((r, position, tags[w]))
    return ids, labels, torch.tensor(firsts)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    table, n_pieces = piece_table(rng)
    train_texts, _ = sentences(1200, rng, max_len=20)
    test_texts, _ = sentences(400, rng, max_len=20)
    ids, labels, _ = encode(train_texts, table, fixed)
    test_ids, _, test_firsts = encode(test_texts, table, True)
    model = Tagger(n_pieces)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(ids), 32))
            logits = model(ids[pick])
            loss = nn.functional.cross_entropy(logits.transpose(1, 2), labels[pick],
                                               ignore_index=IGNORE)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(test_ids).argmax(-1)
    rows, positions, tags = test_firsts.unbind(1)
    mon.held_out_word_tag_accuracy = (predicted[rows, positions] == tags).float().mean().item()
    return mon
