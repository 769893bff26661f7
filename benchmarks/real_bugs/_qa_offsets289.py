"""Batch 289: a SQuAD-like task given as TEXT with character offsets, the way a first
question-answering tutorial receives it: each answer is ``answer_start`` (a character index
into the context) and its text, and the labels are token positions found through the
tokens' character offsets (``char_to_token``).

Token ids (they fit the batch-131 ``SpanReader``, VOCAB 40): 0 padding, 1 [CLS], 2 [SEP],
3 a comma (written against the word before it, no space), 4 the stop word "the", 5.. content
words. A question is one content word, the key; the passage holds it once, and the answer
runs from the key up to the word before the next comma or "the" (1 to ``MAX_ANSWER`` words).
Every token has a character width (a content word 2-7 characters, "the" 3, a comma 1), words
are separated by one space and a comma is glued to the word before it, which gives each
token its (start, end) character offsets in the context string.

``documents`` makes whole passages (for the sliding-window case), ``bert_rows`` the usual
``[CLS] key [SEP] passage [SEP]`` rows with the tutorial's character answers.
"""
import numpy as np
import torch

PAD, CLS, SEP, COMMA, THE = 0, 1, 2, 3, 4
VOCAB = 40
MAX_ANSWER = 4
OFFSET = 3          # [CLS] key [SEP] before the passage


def width(token):
    if token == COMMA:
        return 1
    if token == THE:
        return 3
    return 2 + token % 6


def offsets(tokens):
    """(start, end) character offsets of each token of a passage: one space between words,
    none before a comma."""
    spans, at = [], 0
    for i, token in enumerate(tokens):
        if i > 0 and token != COMMA:
            at += 1                                  # the space before a word
        spans.append((at, at + width(token)))
        at += width(token)
    return spans


def char_to_token(spans, char):
    """The index of the token whose characters hold ``char``; None on a space or past the
    end (what a fast tokenizer's ``char_to_token`` answers)."""
    for i, (s, e) in enumerate(spans):
        if s <= char < e:
            return i
    return None


def passage(rng, length, comma_share=0.35):
    """(tokens, key, start word, end word): a passage of ``length`` tokens whose answer is
    followed by a comma (``comma_share`` of the passages) or by "the"."""
    key = int(rng.integers(5, VOCAB))
    others = [w for w in range(5, VOCAB) if w != key]
    tokens = rng.choice(others, length)
    breaks = rng.random(length) < 0.14
    tokens[breaks] = np.where(rng.random(length) < 0.5, COMMA, THE)[breaks]
    tokens[0] = others[int(rng.integers(0, len(others)))]    # no text opens with a comma
    size = int(rng.integers(1, MAX_ANSWER + 1))
    start = int(rng.integers(0, length - size))
    tokens[start] = key
    for i in range(start + 1, start + size):
        if tokens[i] in (COMMA, THE):
            tokens[i] = others[int(rng.integers(0, len(others)))]
    tokens[start + size] = COMMA if rng.random() < comma_share else THE
    return tokens, key, start, start + size - 1


def character_answer(tokens, start, end):
    """The tutorial's view of the answer: answer_start (a character index) and the
    answer's length in characters, with answer_end = answer_start + len(text)."""
    spans = offsets(tokens)
    return spans[start][0], spans[end][1] - spans[start][0]


def bert_rows(rng, count, lengths=(10, 16)):
    """``count`` rows ``[CLS] key [SEP] passage [SEP]`` padded on the right: tokens (N, T),
    question (N, 1), the true start and end token positions (N,), the passage mask
    (N, T), and per row the passage's character offsets and its character answer
    (answer_start, answer_end), for the cases to label as their tutorial did."""
    longest = lengths[1] + OFFSET + 1
    tokens = torch.zeros(count, longest, dtype=torch.int64)
    in_passage = torch.zeros(count, longest, dtype=torch.bool)
    question = torch.zeros(count, 1, dtype=torch.int64)
    starts = torch.zeros(count, dtype=torch.int64)
    ends = torch.zeros(count, dtype=torch.int64)
    answers = []
    for row in range(count):
        n = int(rng.integers(lengths[0], lengths[1] + 1))
        words, key, start, end = passage(rng, n)
        tokens[row, :n + OFFSET + 1] = torch.tensor([CLS, key, SEP, *words.tolist(), SEP])
        in_passage[row, OFFSET:OFFSET + n] = True
        question[row, 0] = key
        starts[row], ends[row] = start + OFFSET, end + OFFSET
        answer_start, size = character_answer(words, start, end)
        answers.append((offsets(words), answer_start, answer_start + size))
    return tokens, question, starts, ends, in_passage, answers


def documents(rng, count, length):
    """``count`` long passages of ``length`` tokens: (passages (N, length), keys (N,),
    answer start and end word (N,))."""
    rows = np.zeros((count, length), dtype=np.int64)
    keys = np.zeros(count, dtype=np.int64)
    starts = np.zeros(count, dtype=np.int64)
    ends = np.zeros(count, dtype=np.int64)
    for row in range(count):
        rows[row], keys[row], starts[row], ends[row] = passage(rng, length)
    return rows, keys, starts, ends


class LstmReader(torch.nn.Module):
    """A BiDAF-flavoured reader: embeddings, the question vector beside each passage word,
    a bidirectional LSTM, and a start and an end logit per position. ``batch_first`` is
    handed to the LSTM as given: the rows it is fed are (batch, time, features)."""

    def __init__(self, width=32, hidden=32, batch_first=True):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, width)
        self.lstm = torch.nn.LSTM(3 * width, hidden, bidirectional=True,
                                  batch_first=batch_first)
        self.head = torch.nn.Linear(2 * hidden, 2)

    def forward(self, tokens, question):
        words = self.embed(tokens)
        asked = self.embed(question).mean(dim=1, keepdim=True).expand_as(words)
        states, _ = self.lstm(torch.cat([words, asked, words * asked], dim=-1))
        logits = self.head(states)
        return logits[..., 0], logits[..., 1]
