"""Word vectors trained for 40 epochs in a loop that lowers the learning rate by a fixed
step after each epoch: 0.001 off a starting 0.025, so the rate reaches zero after 25 epochs
and is negative for the last 15 (down to -0.014). A negative rate is gradient ASCENT: from
epoch 26 on every update pushes the model away from what it learned - co-occurring words
apart, sampled noise words together - and nothing complains (the optimizer checks the
rate's sign only when it is built).

Reported: "My Doc2Vec code, after many loops/epochs of training, isn't giving good results.
What might be wrong?" - https://stackoverflow.com/questions/62801052 (a gensim model trained
by calling ``train()`` 40 times, ``model.alpha -= 0.001`` and ``model.min_alpha =
model.alpha`` after each call; the answer: 40 decrements of 0.001 from 0.025 end at
-0.015, "a negative alpha learning-rate is nonsensical: it essentially asks the model to
nudge its predictions a little bit in the wrong direction", and the fix is one ``train()``
call over all epochs, the rate decaying linearly from ``alpha`` to a tiny ``min_alpha``).
Here a skip-gram with negative sampling (gensim's default objective; 5 noise words per pair
from the unigram^0.75 distribution) on the batch-123 corpus
(benchmarks/real_bugs/_word_embeddings.py), plain SGD on the batch-mean loss (its rate
scaled to 5.0 where gensim's per-pair update uses 0.025: the same schedule, 200x), 40
epochs of 10 batches of 256 pairs. Fix: one linear decay over the 400 steps from the
starting rate to 0.0001/0.025 of it.

Measured (neighbour precision of the word vectors: the share of each content word's 5
nearest words from its own topic, chance 0.12): seed 0: 0.18 with the bug, 0.87 fixed;
seeds shifted by 1000: 0.18 against 0.86. The bug run's loss falls from 4.3 to 2.5 by the
step the rate reaches zero (step 250), then climbs to 2.3e7 over the ascent epochs.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._word_embeddings import (SkipGram, neighbour_precision,
                                                   noise_distribution, sentences,
                                                   sgns_loss, skipgram_pairs)

TITLE = ("My Doc2Vec code, after many loops/epochs of training, isn't giving good results. "
         "What might be wrong?")
LINK = "https://stackoverflow.com/questions/62801052"
EXPECTED = ("NEGATIVE_LEARNING_RATE",)
STEPS = 400
EPOCHS = 40
ALPHA, DECREMENT, MIN_ALPHA = 0.025, 0.001, 0.0001      # gensim's numbers in the report
SCALE = 5.0 / ALPHA           # the rates of a mean-over-batch loss: gensim's times 200
NOISE_WORDS, BATCH = 5, 256


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, _ = sentences(3000, rng)
    centre, context = skipgram_pairs(ids)
    noise = noise_distribution(ids)
    model = SkipGram()
    optimizer = torch.optim.SGD(model.parameters(), lr=SCALE * ALPHA)
    per_epoch = steps // EPOCHS
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            if fixed:        # one call over every epoch: alpha decays linearly to min_alpha
                alpha = ALPHA - (ALPHA - MIN_ALPHA) * step / steps
            else:            # BUG: 0.001 off after each epoch, below zero after epoch 25
                alpha = ALPHA - DECREMENT * (step // per_epoch)
            for group in optimizer.param_groups:
                group["lr"] = SCALE * alpha
            pick = torch.randint(0, len(centre), (BATCH,))
            negatives = torch.multinomial(noise, BATCH * NOISE_WORDS, replacement=True)
            optimizer.zero_grad()
            positive, negative = model(centre[pick], context[pick],
                                       negatives.view(BATCH, NOISE_WORDS))
            loss = sgns_loss(positive, negative)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.neighbour_precision = neighbour_precision(model.centre.weight)
    return mon
