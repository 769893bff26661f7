"""A sentence-pair (paraphrase) classifier whose masked mean pooling divides each
sentence's summed token vectors by the number of real tokens in the WHOLE BATCH -
``sum(outputs * mask, dim=1) / sum(mask)`` - instead of by the sentence's own count,
``sum(mask, dim=1)``. Every sentence embedding is shrunk by roughly the batch size, and by
a factor that depends on which other sentences share its batch. Training still works after
a fashion (the head learns weights for tiny inputs), but a held-out set scored in one
larger batch gets embeddings ten times smaller again than anything seen in training, and
the classifier's decisions fall apart. Nothing errors, and the training loss looks fine.

Reported: "Possibly incorrect mean pooling" - https://github.com/SeanLee97/AnglE/issues/101
(the 'avg' pooling computed ``torch.sum(outputs * inputs["attention_mask"][:, :, None],
dim=1) / torch.sum(inputs["attention_mask"])``: "you're summing the whole attention mask
into a single value"; the per-sentence mean of the sentence-transformers recipe is the fix).
Here question pairs from the four-topic vocabulary (benchmarks/real_bugs/_txt164.py),
duplicates when both share a topic; a token encoder (embedding and a per-token MLP), masked
mean pooling, the Sentence-BERT classification head on ``[u, v, |u - v|]``, Adam,
cross-entropy, batches of 64; the held-out pairs scored in one batch. Fix: divide by each
sentence's own token count.

Measured (accuracy on 600 held-out pairs): 0.80 with the bug, 0.99 fixed; seeds + 1000:
0.88 vs 0.99.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._txt164 import TOPICS, WORDS, topic_sentence

TITLE = "Possibly incorrect mean pooling"
LINK = "https://github.com/SeanLee97/AnglE/issues/101"
EXPECTED = ("BATCH_MIXING", "EMBEDDINGS_NORMALIZED_OVER_BATCH")
STEPS = 300
LENGTH = 16


def pad(sentences):
    ids = torch.zeros(len(sentences), LENGTH, dtype=torch.int64)
    for i, s in enumerate(sentences):
        ids[i, :len(s)] = torch.tensor(s[:LENGTH])
    return ids


def question_pairs(n, rng):
    first, second, labels = [], [], []
    for _ in range(n):
        topic = int(rng.integers(TOPICS))
        same = int(rng.integers(2))
        other = topic if same else (topic + int(rng.integers(1, TOPICS))) % TOPICS
        first.append(topic_sentence(topic, int(rng.integers(4, 15)), rng))
        second.append(topic_sentence(other, int(rng.integers(4, 15)), rng))
        labels.append(same)
    return pad(first), pad(second), torch.tensor(labels)


class SentencePairClassifier(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(WORDS + 1, dim, padding_idx=0)
        self.tokens = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.head = nn.Linear(3 * dim, 2)

    def encode(self, ids):
        outputs = self.tokens(self.embed(ids))
        mask = (ids != 0).float()
        summed = torch.sum(outputs * mask[:, :, None], dim=1)
        if self.fixed:
            return summed / torch.sum(mask, dim=1, keepdim=True)
        return summed / torch.sum(mask)          # BUG: the whole batch's token count

    def forward(self, first, second):
        u, v = self.encode(first), self.encode(second)
        return self.head(torch.cat([u, v, (u - v).abs()], dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    first, second, labels = question_pairs(3000, rng)
    test_first, test_second, test_labels = question_pairs(600, rng)
    model = SentencePairClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(labels), 64))
            loss = nn.functional.cross_entropy(model(first[pick], second[pick]), labels[pick])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(test_first, test_second).argmax(1)
    mon.held_out_accuracy = (predicted == test_labels).float().mean().item()
    return mon
