"""Synthetic IMDB/SST-style reviews for real-bug batch 237 (beginner sentiment classifiers).

A vocabulary of 64 word ids: 0 is padding, 1 is <unk>, 2-11 are positive words, 12-21
negative words and 22-63 neutral filler. A review has 6 to 40 words, mostly filler, with
a few sentiment words; its label is 1 (positive) when it holds more positive than negative
words (ties are redrawn). Reviews are end-padded with id 0 to the longest of the set, as
a first tutorial's ``pad_sequences``/``padding_value=0`` does. Everything is drawn with
``torch`` after ``torch.manual_seed`` (the benchmark's seed shift moves it).
"""
import torch

PAD, UNK = 0, 1
POS = range(2, 12)
NEG = range(12, 22)
VOCAB = 64
MAX_LEN = 40


def reviews(n, min_len=6, max_len=MAX_LEN, sentiment=0.2):
    """(n, max_len) int64 end-padded word ids, their lengths and 0/1 labels."""
    ids = torch.full((n, max_len), PAD, dtype=torch.int64)
    lengths = torch.randint(min_len, max_len + 1, (n,))
    labels = torch.zeros(n, dtype=torch.int64)
    for row in range(n):
        length = int(lengths[row])
        while True:
            words = torch.randint(22, VOCAB, (length,))
            marked = torch.rand(length) < sentiment
            polarity = torch.rand(length) < 0.5
            pos = torch.randint(2, 12, (length,))
            neg = torch.randint(12, 22, (length,))
            words = torch.where(marked & polarity, pos, torch.where(marked, neg, words))
            n_pos = int((marked & polarity).sum())
            n_neg = int((marked & ~polarity).sum())
            if n_pos != n_neg:
                break
        ids[row, :length] = words
        labels[row] = int(n_pos > n_neg)
    return ids, lengths, labels


def split(n_train=600, n_test=400, **kw):
    """Training and held-out reviews: (ids, lengths, labels) twice."""
    ids, lengths, labels = reviews(n_train + n_test, **kw)
    return ((ids[:n_train], lengths[:n_train], labels[:n_train]),
            (ids[n_train:], lengths[n_train:], labels[n_train:]))


def minibatches(n, steps, batch_size=32):
    """Row indices of ``steps`` shuffled minibatches (epochs of a shuffling DataLoader)."""
    g = torch.Generator()
    g.manual_seed(int(torch.randint(10 ** 6, ())))
    order = torch.empty(0, dtype=torch.int64)
    for _ in range(steps):
        if len(order) < batch_size:
            order = torch.cat([order, torch.randperm(n, generator=g)])
        rows, order = order[:batch_size], order[batch_size:]
        yield rows


@torch.no_grad()
def accuracy(model, ids, labels, *extra):
    """Held-out accuracy of a model returning (N, 2) logits or (N,)/(N, 1) scores."""
    was_training = model.training
    model.eval()
    out = model(ids, *extra)
    model.train(was_training)
    if out.dim() == 2 and out.shape[1] == 2:
        pred = out.argmax(1)
    else:
        pred = (out.reshape(-1) > 0.5 if out.min() >= 0 and out.max() <= 1
                else out.reshape(-1) > 0).long()
    return float((pred == labels).float().mean())
