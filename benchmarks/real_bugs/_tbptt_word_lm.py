"""Pieces the batch-283 cases share: a word-level language model trained the way the first
tutorials train one (the PyTorch word-language-model example's recipe) - one long token
stream ``batchify``-ed into STREAMS parallel columns, read BPTT words at a time, the
(detached) state handed from window to window - on a small synthetic corpus.

The corpus: paragraphs of 4-8 sentences, each paragraph about one of TOPICS topics. A
sentence is ``DET [ADJ] NOUN VERB DET NOUN <eos>`` (the adjective one time in two), the
nouns and verbs drawn from the paragraph's topic. The grammar is local (a bigram model
gets it), the topic is not: it is known only from words read earlier, often in an earlier
window, so a model that carries its state through the text predicts the content words
better. The held-out text (the last HELD_OUT share of the stream) is read in one stream,
window after window, and scored by the mean next-word cross-entropy (the perplexity is
its exp).
"""
import numpy as np
import torch
from torch import nn

STREAMS, BPTT = 16, 4
HELD_OUT = 0.15
TOPICS, NOUNS, VERBS, ADJECTIVES = 10, 8, 6, 4
EOS, THE, A = 0, 1, 2
FIRST_ADJECTIVE = 3
FIRST_CONTENT = FIRST_ADJECTIVE + ADJECTIVES
VOCAB = FIRST_CONTENT + TOPICS * (NOUNS + VERBS)


def _noun(topic, rng):
    return FIRST_CONTENT + topic * (NOUNS + VERBS) + int(rng.integers(NOUNS))


def _verb(topic, rng):
    return FIRST_CONTENT + topic * (NOUNS + VERBS) + NOUNS + int(rng.integers(VERBS))


def corpus(words=24000, seed=0):
    """The token stream (a 1-D int64 tensor of about ``words`` ids)."""
    rng = np.random.default_rng(seed)
    ids = []
    while len(ids) < words:
        topic = int(rng.integers(TOPICS))
        for _ in range(int(rng.integers(4, 9))):
            ids.append(THE if rng.random() < 0.5 else A)
            if rng.random() < 0.5:
                ids.append(FIRST_ADJECTIVE + int(rng.integers(ADJECTIVES)))
            ids += [_noun(topic, rng), _verb(topic, rng), THE if rng.random() < 0.5 else A,
                    _noun(topic, rng), EOS]
    return torch.tensor(ids, dtype=torch.int64)


def split_corpus(seed=0):
    """(train ids, held-out ids): the stream cut in reading order."""
    ids = corpus(seed=seed)
    cut = int(len(ids) * (1 - HELD_OUT))
    return ids[:cut], ids[cut:]


def batchify(ids, streams):
    """(length, streams): column b is the b-th contiguous stretch of ``ids``."""
    length = len(ids) // streams
    return ids[:length * streams].view(streams, length).t().contiguous()


def get_batch(columns, i):
    """The window of BPTT rows from row i and its targets, the same rows one word later."""
    length = min(BPTT, len(columns) - 1 - i)
    return columns[i:i + length], columns[i + 1:i + 1 + length]


def windows(columns, steps=None):
    """(i, inputs, targets) in reading order; ``steps``: that many, the text read again
    from its start as often as needed (None: one pass)."""
    done = 0
    while True:
        for i in range(0, len(columns) - 1, BPTT):
            x, y = get_batch(columns, i)
            yield i, x, y
            done += 1
            if steps is not None and done == steps:
                return
        if steps is None:
            return


class WordLSTM(nn.Module):
    """Embedding, one LSTM layer (sequence-first), a linear decoder of word scores."""

    def __init__(self, vocab=VOCAB, embed=32, hidden=64):
        super().__init__()
        self.encoder = nn.Embedding(vocab, embed)
        self.rnn = nn.LSTM(embed, hidden)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, x, hidden=None):
        output, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(output), hidden


def repackage_hidden(hidden):
    """The state as new tensors cut from their history (truncated BPTT)."""
    return tuple(h.detach() for h in hidden)


@torch.no_grad()
def held_out_cross_entropy(model, ids, carry=repackage_hidden):
    """Mean next-word cross-entropy (nats; the perplexity is its exp) over the held-out
    text, read in one stream in windows of BPTT with the state handed on by
    ``carry(state) -> state``."""
    model.eval()
    columns = batchify(ids, 1)
    hidden, total, count = None, 0.0, 0
    for _, x, y in windows(columns):
        scores, hidden = model(x, hidden)
        hidden = carry(hidden)
        total += nn.functional.cross_entropy(scores.reshape(-1, scores.shape[-1]),
                                             y.reshape(-1), reduction="sum").item()
        count += y.numel()
    model.train()
    return total / count
