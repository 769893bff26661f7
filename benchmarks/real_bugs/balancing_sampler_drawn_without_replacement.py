"""An imbalanced text classifier "balanced" with a WeightedRandomSampler built with
``replacement=False`` and ``num_samples=len(dataset)``: drawing every example once without
replacement is a permutation of the dataset, whatever the weights, so each epoch has the
original class ratio and the inverse-frequency weights only change the ORDER in which the
rare examples come (early in the epoch). Nothing errors; training is that of the
unbalanced data, and the rare classes' recall stays low.

Reported: "WeightedRandomSampler doesnt keep expected ratio betwen samples" -
https://github.com/pytorch/pytorch/issues/116117 (a class at 20% weighted through
WeightedRandomSampler with ``replacement=False``: drawing 100% of the dataset gave the ratio
0.2 back unchanged, and smaller draws gave ratios that depend on the draw's size; the
sampler's documented behaviour - without replacement, every index is drawn at most once -
so the rebalancing needs ``replacement=True``). Here four-topic sentences of 4 to 10 words
where only 15% of the words are topical (benchmarks/real_bugs/_txt164.py), two topics at
45% of the training set each and two at 5%; inverse-frequency sample weights; an
embedding bag + MLP classifier, Adam, batches of 64 from the sampler. Fix:
``replacement=True``.

Measured (balanced accuracy - the mean of the per-class recalls - on 800 held-out
sentences, 200 per class): seed 0, 0.52 for the bug against 0.75 for the fixed twin (the
two rare classes' recall 0.20 against 0.77); seeds shifted by 1000, 0.54 against 0.75
(0.27 against 0.77). The rare examples, weighted up, come first in each epoch's
permutation, so the bug run's loss swings with the epoch.
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import WeightedRandomSampler

import nndebug as nd
from benchmarks.real_bugs._txt164 import TOPICS, WORDS, pad, topic_sentence

TITLE = "WeightedRandomSampler doesnt keep expected ratio betwen samples"
LINK = "https://github.com/pytorch/pytorch/issues/116117"
EXPECTED = ("BALANCING_SAMPLER_KEEPS_CLASS_RATIO",)
STEPS = 300
SHARES = (0.45, 0.45, 0.05, 0.05)


def dataset(counts, rng):
    texts, labels = [], []
    for topic, count in enumerate(counts):
        for _ in range(count):
            texts.append(topic_sentence(topic, int(rng.integers(4, 11)), rng, topical=0.15))
            labels.append(topic)
    ids, _ = pad(texts)
    return ids, torch.tensor(labels)


class BagClassifier(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.EmbeddingBag(WORDS + 1, dim, mode="mean", padding_idx=0)
        self.head = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, TOPICS))

    def forward(self, ids):
        return self.head(self.embed(ids))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, labels = dataset([int(2000 * s) for s in SHARES], rng)
    test_ids, test_labels = dataset([200] * TOPICS, rng)
    counts = torch.bincount(labels, minlength=TOPICS).double()
    weights = (1.0 / counts)[labels]
    draws = torch.Generator().manual_seed(int(rng.integers(2 ** 31)))
    sampler = WeightedRandomSampler(weights, num_samples=len(labels),
                                    replacement=fixed,    # BUG: False, a permutation
                                    generator=draws)
    model = BagClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            order = torch.tensor(list(sampler))
            for start in range(0, len(order) - 63, 64):
                pick = order[start:start + 64]
                loss = nn.functional.cross_entropy(model(ids[pick]), labels[pick])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    with torch.no_grad():
        predicted = model(test_ids).argmax(1)
    recalls = [(predicted[test_labels == k] == k).float().mean().item() for k in range(TOPICS)]
    mon.held_out_balanced_accuracy = float(np.mean(recalls))
    mon.held_out_rare_class_recall = float(np.mean(recalls[2:]))
    return mon
