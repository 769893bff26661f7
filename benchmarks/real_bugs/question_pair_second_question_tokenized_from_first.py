"""A duplicate-question (paraphrase) detector whose preprocessing tokenises the first
question into BOTH inputs: the line meant to encode ``question2`` was copied from the
``question1`` line and still reads ``question1``. Every pair reaches the twin encoder as
(q1, q1), so the features a siamese classifier compares - ``|u - v|`` and ``u * v`` - say
"identical" for every pair, duplicate or not. Nothing errors, the shapes are right, and the
loss settles near log 2, which reads like a hard data set rather than an input never fed.

Reported: "Tokenize Question2 fix" - https://github.com/deepampatel/TwinBert/pull/1 (a
twin-BERT notebook for question pairs; the pull request says "there is a typo while
tokenizing the Question2", and the author merged the fix). Here question pairs from the
four-topic vocabulary (benchmarks/real_bugs/_txt164.py): a pair is a duplicate (label 1)
when both questions ask about the same topic, else not (label 0); a shared mean-of-embeddings
encoder, the classifier on ``[u, v, |u - v|, u * v]``, Adam, cross-entropy. Fix: the second
input tokenised from the second question.

Measured (accuracy on 600 held-out pairs, preprocessed by the same function): 0.51 with the
bug, 1.00 fixed; seeds + 1000: 0.51 vs 0.99.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._txt164 import TOPICS, WORDS, topic_sentence

TITLE = "Tokenize Question2 fix"
LINK = "https://github.com/deepampatel/TwinBert/pull/1"
EXPECTED = ("INPUT_FEATURES_DUPLICATED",)
STEPS = 300


def question_pairs(n, rng):
    """Two lists of questions (word ids) and the duplicate labels."""
    first, second, labels = [], [], []
    for _ in range(n):
        topic = int(rng.integers(TOPICS))
        same = int(rng.integers(2))
        other = topic if same else (topic + int(rng.integers(1, TOPICS))) % TOPICS
        first.append(topic_sentence(topic, int(rng.integers(5, 15)), rng))
        second.append(topic_sentence(other, int(rng.integers(5, 15)), rng))
        labels.append(same)
    return first, second, torch.tensor(labels)


def tokenise(questions, length=16):
    ids = torch.zeros(len(questions), length, dtype=torch.int64)
    for i, q in enumerate(questions):
        ids[i, :len(q)] = torch.tensor(q[:length])
    return ids


def preprocess(first, second, fixed):
    q1 = tokenise(first)
    if fixed:
        q2 = tokenise(second)
    else:          # BUG: copied line, still tokenising question 1
        q2 = tokenise(first)
    return q1, q2


class TwinEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(WORDS + 1, dim, padding_idx=0)
        self.project = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.head = nn.Sequential(nn.Linear(4 * dim, 64), nn.ReLU(), nn.Linear(64, 2))

    def encode(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()
        return self.project((self.embed(ids) * mask).sum(1) / mask.sum(1).clamp(min=1))

    def forward(self, q1, q2):
        u, v = self.encode(q1), self.encode(q2)
        return self.head(torch.cat([u, v, (u - v).abs(), u * v], dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    first, second, labels = question_pairs(3000, rng)
    test_first, test_second, test_labels = question_pairs(600, rng)
    q1, q2 = preprocess(first, second, fixed)
    test_q1, test_q2 = preprocess(test_first, test_second, fixed)
    model = TwinEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(labels), 64))
            loss = nn.functional.cross_entropy(model(q1[pick], q2[pick]), labels[pick])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(test_q1, test_q2).argmax(1)
    mon.held_out_accuracy = (predicted == test_labels).float().mean().item()
    return mon
