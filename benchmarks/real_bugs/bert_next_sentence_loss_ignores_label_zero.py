"""BERT pretraining where one loss object serves both heads: ``nn.NLLLoss(ignore_index=0)``
is right for the masked-word head (label 0 is the padding id, given to every position that
was not chosen for prediction) and wrong for the next-sentence head, whose labels are 1
(B follows A) and 0 (B is a random sentence). Every "not next" pair is ignored: the
next-sentence head is only ever told "is next", learns to say so for every pair, and its
loss goes to ~0 while its accuracy sits at a coin flip. The masked-word loss trains as it
should, so the total loss looks healthy.

Reported: "Question about the loss of Masked LM" -
https://github.com/codertimo/BERT-pytorch/issues/49 (the reporter: the criterion
``nn.NLLLoss(ignore_index=0)`` "can not be used as criterion for sentence prediction
because the label of sentence is 1 or 0. We should remove ignore_index=0 for sentence
prediction"; another user: "My loss of next sentence is very low, but the acc of
next_correct is always near 50%"; the maintainer: "I think your point is right too. I'll
fix it up ASAP"). Here pairs of sentences from the batch-123 corpus
(benchmarks/real_bugs/_word_embeddings.py: B is the same document's next sentence - same
topic - or a random sentence), ``[CLS] A [SEP] B [SEP]`` with segment ids, 15% of the words
chosen for the masked-word loss (80% [MASK], 10% a random word, 10% kept; label 0
elsewhere), a bidirectional GRU encoder (BERT's encoder in the report: the bug is in the
loss), log-softmax heads at every position and at [CLS]. Fix: a criterion without
``ignore_index`` for the next-sentence labels.

Measured (300 Adam steps, batch 64; 2,000 held-out pairs): next-sentence accuracy 0.50 with
the bug (it answers "is next" for every pair) against 0.91 fixed at seed 0; seeds shifted by
1000: 0.51 against 0.86. Masked-word accuracy is alike (0.14 against 0.14 at seed 0).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._word_embeddings import VOCAB, sentences

TITLE = "Question about the loss of Masked LM"
LINK = "https://github.com/codertimo/BERT-pytorch/issues/49"
EXPECTED = ("IGNORE_INDEX_LEAVES_ONE_CLASS",)
STEPS = 300
PAD, MASK, CLS, SEP = 0, VOCAB, VOCAB + 1, VOCAB + 2   # id 0 never occurs in a sentence
TOKENS = VOCAB + 3
MASK_SHARE, BATCH = 0.15, 64


class TinyBert(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.token = nn.Embedding(TOKENS, dim, padding_idx=PAD)
        self.segment = nn.Embedding(2, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.mask_lm = nn.Linear(2 * dim, TOKENS)
        self.next_sentence = nn.Linear(2 * dim, 2)

    def forward(self, ids, segments):
        hidden = self.encoder(self.token(ids) + self.segment(segments))[0]
        return (F.log_softmax(self.mask_lm(hidden), dim=-1),
                F.log_softmax(self.next_sentence(hidden[:, 0]), dim=-1))


def documents(count, rng):
    """(first sentences, their next sentences, random sentences): the next sentence shares
    the document's topic."""
    first, topic = sentences(count, rng)
    second, _ = sentences(count, rng)
    # redraw each second sentence from the first's topic: same-topic continuations
    pool, pool_topic = sentences(8 * count, rng)
    by_topic = [pool[pool_topic == t] for t in range(int(topic.max()) + 1)]
    for row in range(count):
        options = by_topic[int(topic[row])]
        second[row] = options[int(rng.integers(len(options)))]
    randoms, _ = sentences(count, rng)
    return first, second, randoms


def bert_batch(first, second, randoms, rows, rng):
    """(ids, segments, masked-word labels (0: not chosen), is_next labels)."""
    n, length = len(rows), first.shape[1]
    is_next = torch.from_numpy(rng.random(n) < 0.5)
    b = torch.where(is_next[:, None], second[rows], randoms[rows])
    a = first[rows]
    cls, sep = torch.full((n, 1), CLS), torch.full((n, 1), SEP)
    words = torch.cat([a, b], dim=1)
    chosen = torch.from_numpy(rng.random(words.shape) < MASK_SHARE)
    kind = torch.from_numpy(rng.random(words.shape))
    shown = torch.where(chosen & (kind < 0.8), torch.full_like(words, MASK), words)
    random_words = torch.from_numpy(rng.integers(1, VOCAB, size=words.shape))
    shown = torch.where(chosen & (kind >= 0.8) & (kind < 0.9), random_words, shown)
    ids = torch.cat([cls, shown[:, :length], sep, shown[:, length:], sep], dim=1)
    labels = torch.cat([torch.zeros(n, 1, dtype=torch.long),
                        torch.where(chosen[:, :length], a, 0), torch.zeros(n, 1, dtype=torch.long),
                        torch.where(chosen[:, length:], b, 0),
                        torch.zeros(n, 1, dtype=torch.long)], dim=1)
    segments = torch.cat([torch.zeros(n, length + 2, dtype=torch.long),
                          torch.ones(n, length + 1, dtype=torch.long)], dim=1)
    return ids, segments, labels, is_next.long()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    first, second, randoms = documents(4000, rng)
    model = TinyBert()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.NLLLoss(ignore_index=PAD)     # right for the masked words' labels
    next_criterion = nn.NLLLoss() if fixed else criterion   # BUG: label 0 ignored there too
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(len(first), size=BATCH))
            ids, segments, labels, is_next = bert_batch(first, second, randoms, rows, rng)
            optimizer.zero_grad()
            mask_lm_output, next_sentence_output = model(ids, segments)
            next_loss = next_criterion(next_sentence_output, is_next)
            mask_loss = criterion(mask_lm_output.transpose(1, 2), labels)
            loss = next_loss + mask_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held_rng = np.random.default_rng(1)
    held = documents(2000, held_rng)
    ids, segments, labels, is_next = bert_batch(*held, torch.arange(2000), held_rng)
    with torch.no_grad():
        mask_lm_output, next_sentence_output = model(ids, segments)
    chosen = labels != PAD
    mon.nsp_accuracy = round((next_sentence_output.argmax(1) == is_next).float().mean().item(), 3)
    mon.masked_accuracy = round(
        (mask_lm_output.argmax(-1)[chosen] == labels[chosen]).float().mean().item(), 3)
    return mon
