"""A sentence-pair classifier fed ``[CLS] A [SEP] B [SEP]`` without its segment ids: every
token gets the first segment's embedding, so the model sees the pair as one sequence and
cannot tell which sentence a word came from. For a symmetric question (do A and B share a
topic?) that costs little; for an ordered one (does B follow A?) the words of the two
orders are the same bag, and the classifier is left to guess. Nothing errors - a missing
``token_type_ids`` defaults to zeros - and the loss sits at log 2, which reads like a task
too hard for the model rather than an input left out.

Reported: "potential bug in extract_features.py" -
https://github.com/huggingface/transformers/issues/263 (the pair example called the model
with ``token_type_ids=None``, so for a pair "the model will process the pair as a single
sequence and add A embedding to the two sequences, which should add A, B respectively";
the maintainer agreed the script handles single sentences only and invited the fix:
segment id 0 for ``[CLS] A [SEP]``, 1 for ``B [SEP]``). Here sentence pairs from the
four-topic vocabulary (benchmarks/real_bugs/_txt164.py) labelled by whether B's topic is
the one after A's (label 1) or the one before it (label 0); a deep averaging encoder
(token + segment embedding, a per-token MLP, the mean over the real tokens, an MLP head),
Adam. Fix: the segment ids passed.

Measured (accuracy on 600 held-out pairs): seed 0, 0.48 for the bug against 1.00 for the
fixed twin; seeds shifted by 1000, 0.49 against 0.99.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._txt164 import TOPICS, WORDS, topic_sentence

TITLE = "potential bug in extract_features.py"
LINK = "https://github.com/huggingface/transformers/issues/263"
EXPECTED = ("SEGMENT_IDS_MISSING",)
STEPS = 500
CLS, SEP = WORDS + 1, WORDS + 2


def pairs(n, rng):
    """Token ids (n, longest) padded with 0, segment ids, and labels."""
    rows, segments, labels = [], [], []
    for _ in range(n):
        first = int(rng.integers(TOPICS))
        label = int(rng.integers(2))
        second = (first + 1) % TOPICS if label else (first - 1) % TOPICS
        a = topic_sentence(first, int(rng.integers(4, 13)), rng)
        b = topic_sentence(second, int(rng.integers(4, 13)), rng)
        rows.append([CLS] + a + [SEP] + b + [SEP])
        segments.append([0] * (len(a) + 2) + [1] * (len(b) + 1))
        labels.append(label)
    longest = max(len(r) for r in rows)
    ids = torch.zeros(n, longest, dtype=torch.int64)
    seg = torch.zeros(n, longest, dtype=torch.int64)
    for i, (r, s) in enumerate(zip(rows, segments)):
        ids[i, :len(r)] = torch.tensor(r)
        seg[i, :len(s)] = torch.tensor(s)
    return ids, seg, torch.tensor(labels)


class PairEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.tokens = nn.Embedding(WORDS + 3, dim, padding_idx=0)
        self.segments = nn.Embedding(2, dim)
        self.per_token = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 64),
                                       nn.ReLU())
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, ids, token_type_ids=None):
        if token_type_ids is None:         # as the model's default: every token segment A
            token_type_ids = torch.zeros_like(ids)
        hidden = self.per_token(self.tokens(ids) + self.segments(token_type_ids))
        mask = (ids != 0).unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1)
        return self.head(pooled)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, segments, labels = pairs(3000, rng)
    test_ids, test_segments, test_labels = pairs(600, rng)
    model = PairEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(ids), 64))
            if fixed:
                logits = model(ids[pick], token_type_ids=segments[pick])
            else:          # BUG: the pair's segment ids never passed
                logits = model(ids[pick])
            loss = nn.functional.cross_entropy(logits, labels[pick])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        logits = model(test_ids, token_type_ids=test_segments if fixed else None)
    mon.held_out_accuracy = (logits.argmax(1) == test_labels).float().mean().item()
    return mon
