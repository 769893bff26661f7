"""A multiple-choice reply selector trained on candidate lists that always put the gold
reply last, with a head that reads the candidates side by side: the encodings of the four
candidates are concatenated into one vector and a linear layer maps it to four logits. Such
a head can see WHERE a candidate sits, and since the label is always "the last one", the
position alone drives the training loss to zero within a few dozen steps - the content of
the replies never matters. At test time, with the candidates in any other order, it still
picks the last slot: chance. Training accuracy is perfect and the loss falls like a healthy
run's.

Reported: "Multi-class labels identical each time?" -
https://github.com/huggingface/transfer-learning-conv-ai/issues/5 ("the correct reply is
always the last sequence among the candidates. Won't this encourage the multiple choice
head classifier ... to always predict the last class?"; the maintainer answered that their
model is invariant to the candidates' order because one shared linear layer scores each
candidate on its own). Here a dialogue context and four candidate replies from the
four-topic vocabulary (benchmarks/real_bugs/_txt164.py): the gold reply shares the
context's topic, the three distractors each come from another topic; mean-of-embeddings
encoders, Adam, cross-entropy over the four candidates. Fix: the candidates flattened into
the batch and scored one by one by a shared scorer (then reshaped to (batch, 4)), as the
maintainer describes; the data, gold last, unchanged.

Measured (accuracy on 600 held-out questions whose candidates are in random order): 0.26
with the bug, 0.99 fixed; seeds + 1000: 0.24 vs 0.99.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._txt164 import TOPICS, WORDS, topic_sentence

TITLE = "Multi-class labels identical each time?"
LINK = "https://github.com/huggingface/transfer-learning-conv-ai/issues/5"
EXPECTED = ("TARGETS_ALL_ONE_CLASS",)
STEPS = 300
CHOICES, LENGTH = 4, 14


def pad(sentences):
    ids = torch.zeros(len(sentences), LENGTH, dtype=torch.int64)
    for i, s in enumerate(sentences):
        ids[i, :len(s)] = torch.tensor(s[:LENGTH])
    return ids


def questions(n, rng, gold_last):
    """Contexts (n, LENGTH), candidates (n, CHOICES, LENGTH) and the gold's index."""
    contexts, candidates, labels = [], [], []
    for _ in range(n):
        topic = int(rng.integers(TOPICS))
        contexts.append(topic_sentence(topic, int(rng.integers(5, LENGTH)), rng))
        others = [(topic + k) % TOPICS for k in range(1, TOPICS)]
        replies = [topic_sentence(t, int(rng.integers(5, LENGTH)), rng) for t in others]
        gold = topic_sentence(topic, int(rng.integers(5, LENGTH)), rng)
        where = CHOICES - 1 if gold_last else int(rng.integers(CHOICES))
        replies.insert(where, gold)
        candidates.extend(replies)
        labels.append(where)
    return pad(contexts), pad(candidates).view(n, CHOICES, LENGTH), torch.tensor(labels)


class Encoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(WORDS + 1, dim, padding_idx=0)
        self.project = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()
        return self.project((self.embed(ids) * mask).sum(1) / mask.sum(1).clamp(min=1))


class ConcatenatedChoices(nn.Module):
    """BUG: all candidates side by side in one vector, one head for the four logits."""

    def __init__(self, dim=32):
        super().__init__()
        self.context, self.reply = Encoder(dim), Encoder(dim)
        self.head = nn.Sequential(nn.Linear((1 + CHOICES) * dim, 64), nn.ReLU(),
                                  nn.Linear(64, CHOICES))

    def forward(self, context, candidates):
        n = candidates.shape[0]
        replies = self.reply(candidates.reshape(n * CHOICES, LENGTH)).reshape(n, -1)
        return self.head(torch.cat([self.context(context), replies], dim=1))


class SharedScorer(nn.Module):
    """Fix: each (context, candidate) scored on its own, the choices flattened into the batch."""

    def __init__(self, dim=32):
        super().__init__()
        self.context, self.reply = Encoder(dim), Encoder(dim)
        self.score = nn.Sequential(nn.Linear(3 * dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, context, candidates):
        n = candidates.shape[0]
        c = self.context(context).repeat_interleave(CHOICES, dim=0)
        r = self.reply(candidates.reshape(n * CHOICES, LENGTH))
        return self.score(torch.cat([c, r, c * r], dim=1)).view(n, CHOICES)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    contexts, candidates, labels = questions(3000, rng, gold_last=True)
    test_contexts, test_candidates, test_labels = questions(600, rng, gold_last=False)
    model = SharedScorer() if fixed else ConcatenatedChoices()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(labels), 32))
            logits = model(contexts[pick], candidates[pick])
            loss = nn.functional.cross_entropy(logits, labels[pick])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(test_contexts, test_candidates).argmax(1)
    mon.held_out_accuracy = (predicted == test_labels).float().mean().item()
    return mon
