"""A small extractive question-answering task for the span-prediction cases of batch 131.

Token ids: 0 padding, 1 [CLS], 2 [SEP], 3 a stop word, 4.. content words. A question is one
content word, the key; its passage holds the key exactly once, and the answer is the span
from the key up to the word before the next stop word (1 to ``MAX_ANSWER`` words). The
reader has to match passage words against the question (the start) and find the following
stop word (the end): what a SQuAD reader learns, at the size of a CPU test.

``SpanReader`` is an embedding, a question vector broadcast over the passage (the aligned
question features of DrQA), a bidirectional GRU and a linear head giving a start and an end
logit per position; ``best_span`` is the usual decoding (the highest start + end score over
spans of at most ``MAX_ANSWER`` words among the allowed positions).
"""
import numpy as np
import torch

PAD, CLS, SEP, STOP = 0, 1, 2, 3
VOCAB = 40
MAX_ANSWER = 4


def passage(rng, length, start=None, answerable=True):
    """(words, key, (start, end)) of one passage of ``length`` words; ``start`` fixes where
    the answer begins (drawn when None); an unanswerable passage lacks its key, span None."""
    key = int(rng.integers(4, VOCAB))
    others = [w for w in range(4, VOCAB) if w != key]
    words = rng.choice(others, length)
    words[rng.random(length) < 0.12] = STOP          # stop words scattered through it
    if not answerable:
        return words, key, None
    size = int(rng.integers(1, MAX_ANSWER + 1))
    if start is None:
        start = int(rng.integers(0, length - size))
    words[start] = key
    for i in range(start + 1, start + size):
        if words[i] == STOP:
            words[i] = others[int(rng.integers(0, len(others)))]
    words[start + size] = STOP
    return words, key, (start, start + size - 1)


class SpanReader(torch.nn.Module):
    """Start and end logits, (B, T) each, for token ids (B, T) and question ids (B, Q)."""

    def __init__(self, width=32, hidden=32):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, width)
        self.rnn = torch.nn.GRU(3 * width, hidden, batch_first=True, bidirectional=True)
        self.head = torch.nn.Linear(2 * hidden, 2)

    def encode(self, tokens, question):
        words = self.embed(tokens)
        asked = self.embed(question).mean(dim=1, keepdim=True).expand_as(words)
        states, _ = self.rnn(torch.cat([words, asked, words * asked], dim=-1))
        return self.head(states)                     # (B, T, 2)

    def forward(self, tokens, question):
        logits = self.encode(tokens, question)
        return logits[..., 0], logits[..., 1]


def span_loss(start_logits, end_logits, starts, ends):
    cross_entropy = torch.nn.functional.cross_entropy
    return (cross_entropy(start_logits, starts) + cross_entropy(end_logits, ends)) / 2


def best_span(start_logits, end_logits, allowed, max_answer=MAX_ANSWER):
    """(starts, ends, scores): the best span per row over positions where ``allowed`` (B, T)
    is True, start <= end < start + max_answer."""
    scores = start_logits[:, :, None] + end_logits[:, None, :]
    t = start_logits.shape[1]
    i = torch.arange(t)
    ok = (i[None, :] >= i[:, None]) & (i[None, :] < i[:, None] + max_answer)
    ok = ok[None] & allowed[:, :, None] & allowed[:, None, :]
    scores = scores.masked_fill(~ok, float("-inf")).flatten(1)
    best, where = scores.max(dim=1)
    return where // t, where % t, best


OFFSET = 3      # [CLS] key [SEP] come before the passage in the BERT layout


def bert_layout(rng, count, lengths=(10, 16), at_start=0.0):
    """``count`` questions in the BERT layout ``[CLS] key [SEP] passage [SEP]`` padded on
    the right: tokens (N, T), question (N, 1), answer starts and ends in token positions
    (N,), and the passage mask (N, T). ``at_start``: the share of answers that begin at the
    passage's first word (fields like a document's title or its company name)."""
    longest = lengths[1] + OFFSET + 1
    tokens = torch.zeros(count, longest, dtype=torch.int64)
    in_passage = torch.zeros(count, longest, dtype=torch.bool)
    question = torch.zeros(count, 1, dtype=torch.int64)
    starts = torch.zeros(count, dtype=torch.int64)
    ends = torch.zeros(count, dtype=torch.int64)
    for row in range(count):
        n = int(rng.integers(lengths[0], lengths[1] + 1))
        first = 0 if rng.random() < at_start else None
        words, key, (start, end) = passage(rng, n, start=first)
        tokens[row, :n + OFFSET + 1] = torch.tensor([CLS, key, SEP, *words.tolist(), SEP])
        in_passage[row, OFFSET:OFFSET + n] = True
        question[row, 0] = key
        starts[row], ends[row] = start + OFFSET, end + OFFSET
    return tokens, question, starts, ends, in_passage


def exact_match(predicted_starts, predicted_ends, starts, ends):
    return ((predicted_starts == starts) & (predicted_ends == ends)).float().mean().item()
