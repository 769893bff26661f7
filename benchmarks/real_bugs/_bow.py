"""Shared pieces of real-bug batch 264 (beginner bag-of-words, TF-IDF and EmbeddingBag text
classifiers): synthetic topic documents, their text form, bag-of-words counts, an
EmbeddingBag classifier and the held-out accuracy the docstrings quote.

Word ids run 1..VOCAB-1 (0 is padding); class c owns the TOPIC words 1 + c*TOPIC ...; the
rest are fillers shared by every class. A document has MIN_LEN..MAX_LEN words, each a word
of its class's topic with probability ``topical``, else a filler. Everything is drawn with
torch after ``torch.manual_seed`` (the benchmark's seed shift moves it).
"""
import torch
from torch import nn

CLASSES, TOPIC, VOCAB = 4, 15, 400
MIN_LEN, MAX_LEN = 4, 60
PAD = 0


def documents(n, topical=0.25, classes=CLASSES, min_len=MIN_LEN, max_len=MAX_LEN):
    """``n`` documents (a list of 1-D int64 id tensors) and their class labels."""
    labels = torch.randint(classes, (n,))
    lengths = torch.randint(min_len, max_len + 1, (n,))
    docs = []
    fillers = VOCAB - 1 - classes * TOPIC
    for label, length in zip(labels.tolist(), lengths.tolist()):
        topic = 1 + label * TOPIC + torch.randint(TOPIC, (length,))
        filler = 1 + classes * TOPIC + torch.randint(fillers, (length,))
        docs.append(torch.where(torch.rand(length) < topical, topic, filler))
    return docs, labels


def texts(docs):
    """The documents as whitespace-separated strings of word names ("w17 w203 ...")."""
    return [" ".join(f"w{int(t)}" for t in doc) for doc in docs]


def flat(docs):
    """EmbeddingBag input: the concatenated ids and each document's start offset."""
    lengths = torch.tensor([len(d) for d in docs])
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), lengths[:-1].cumsum(0)])
    return torch.cat(docs), offsets


def padded(docs, length=MAX_LEN):
    """(N, length) ids end-padded with PAD."""
    ids = torch.full((len(docs), length), PAD, dtype=torch.int64)
    for row, doc in enumerate(docs):
        ids[row, :len(doc)] = doc[:length]
    return ids


class BagClassifier(nn.Module):
    """nn.EmbeddingBag (mean) then a linear layer, as in the text classification tutorial."""

    def __init__(self, vocab=VOCAB, dim=16, classes=CLASSES, padding_idx=None):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab, dim, mode="mean", padding_idx=padding_idx)
        self.fc = nn.Linear(dim, classes)

    def forward(self, ids, offsets=None):
        return self.fc(self.embedding(ids, offsets))


def accuracy(scores, y):
    if scores.dim() == 1:
        return round(float(((scores > 0).long() == y).float().mean()), 3)
    return round(float((scores.argmax(1) == y).float().mean()), 3)
