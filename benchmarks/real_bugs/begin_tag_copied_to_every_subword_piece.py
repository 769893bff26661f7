"""A subword NER tagger trained with every piece of a word labelled with the word's tag
("label all tokens"): a word tagged B-X gives B-X to its first piece AND to each of its
continuation pieces. Read back piece by piece (as an IOB2 decoder or seqeval over the
pieces does), every B-X opens a new entity, so an entity whose first word splits into
pieces comes out as several one-piece entities. Nothing errors, the loss falls as fast as
with the right labels (they are as learnable), and the tagger's entities are fragmented.

Reported: "Fix label attribution in token classification examples" -
https://github.com/huggingface/transformers/pull/14055 (fixing issue #14043: with
``label_all_tokens`` the token-classification examples gave every token of a split word
the word's label, so a B-Xxx word's later tokens were labelled B-Xxx too; the maintainer:
"if that label is a B-Xxx, only the first token should get it, the following ones should
have an I-Xxx label", and the examples now map B-Xxx to I-Xxx for the later tokens). Here
sentences of filler words and entities of 1-3 words of one topic
(benchmarks/real_bugs/_txt164.py), IOB2 tags over four entity types, each word split into
1-3 pieces of its own; an embedding + GRU tagger over the pieces, Adam. Fix: the
continuation pieces of a B-X word labelled I-X.

Measured (entity-level F1 on 400 held-out sentences, entities decoded IOB2-style from the
predicted piece tags and compared with the gold piece tags' entities): seed 0, 0.24 for the
bug against 1.00 for the fixed twin; seeds shifted by 1000, 0.31 against 1.00.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._txt164 import FILLERS, PER_TOPIC, TOPICS, piece_table

TITLE = "Fix label attribution in token classification examples"
LINK = "https://github.com/huggingface/transformers/pull/14055"
EXPECTED = ("BEGIN_TAG_ON_SUBWORD_CONTINUATIONS",)
STEPS = 300
OUTSIDE = 0
TAGS = 1 + 2 * TOPICS                  # O, then B-t = 1 + 2t, I-t = 2 + 2t


def tagged_sentence(rng):
    """Words and their IOB2 tags: fillers with entities of 1-3 topic words, an entity
    always followed by a filler."""
    words, tags = [], []
    while len(words) < int(rng.integers(8, 20)):
        if rng.random() < 0.4:
            topic, size = int(rng.integers(TOPICS)), int(rng.integers(1, 4))
            for k in range(size):
                words.append(1 + topic * PER_TOPIC + int(rng.integers(PER_TOPIC)))
                tags.append(1 + 2 * topic + (k > 0))
        words.append(1 + TOPICS * PER_TOPIC + int(rng.integers(FILLERS)))
        tags.append(OUTSIDE)
    return words, tags


def encode(sentences, table, fixed):
    """Padded piece ids and piece labels (-100 on padding)."""
    rows = []
    for words, tags in sentences:
        pieces, labels = [], []
        for word, tag in zip(words, tags):
            pieces.extend(table[word])
            labels.append(tag)
            for _ in table[word][1:]:
                if fixed and tag != OUTSIDE and tag % 2 == 1:
                    labels.append(tag + 1)       # B-X word: its later pieces are I-X
                else:
                    labels.append(tag)           # BUG for B-X: the B-X copied
            # (I-X and O words give every piece their own tag either way)
        rows.append((pieces, labels))
    longest = max(len(p) for p, _ in rows)
    ids = torch.zeros(len(rows), longest, dtype=torch.int64)
    labels = torch.full((len(rows), longest), -100, dtype=torch.int64)
    for i, (p, l) in enumerate(rows):
        ids[i, :len(p)] = torch.tensor(p)
        labels[i, :len(l)] = torch.tensor(l)
    return ids, labels


def entities(tags):
    """IOB2 spans (start, end, type) of a tag list: B-X opens, I-X continues an open X
    (an I-X with nothing of type X open opens one, as seqeval does)."""
    spans, start, kind = set(), None, None
    for position, tag in enumerate(tags + [OUTSIDE]):
        if tag == OUTSIDE or tag % 2 == 1 or (tag - 2) // 2 != kind:
            if start is not None:
                spans.add((start, position, kind))
            start, kind = (None, None) if tag == OUTSIDE else (position, (tag - 1) // 2)
    return spans


class Tagger(nn.Module):
    def __init__(self, pieces, dim=32):
        super().__init__()
        self.embed = nn.Embedding(pieces, dim, padding_idx=0)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, TAGS)

    def forward(self, ids):
        hidden, _ = self.gru(self.embed(ids))
        return self.out(hidden)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    table, n_pieces = piece_table(rng)
    train = [tagged_sentence(rng) for _ in range(1500)]
    test = [tagged_sentence(rng) for _ in range(400)]
    ids, labels = encode(train, table, fixed)
    test_ids, test_labels = encode(test, table, True)
    model = Tagger(n_pieces)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(ids), 32))
            loss = nn.functional.cross_entropy(model(ids[pick]).transpose(1, 2),
                                               labels[pick], ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(test_ids).argmax(-1)
    hits = found = gold = 0
    for row in range(len(test)):
        length = int((test_labels[row] != -100).sum())
        true = entities(test_labels[row, :length].tolist())
        guess = entities(predicted[row, :length].tolist())
        hits, found, gold = hits + len(true & guess), found + len(guess), gold + len(true)
    mon.held_out_entity_f1 = 2 * hits / max(found + gold, 1)
    return mon
