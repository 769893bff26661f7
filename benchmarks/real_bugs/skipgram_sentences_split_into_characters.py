"""A skip-gram whose sentences are turned into ids one CHARACTER at a time: the vocabulary
was built from the sentences split into words, but the function that maps a sentence to
ids loops ``for word in sentence`` over the raw string, so every "word" it looks up is a
letter or a space. Almost none is in the vocabulary and they all become the rare-word id
0; the few one-letter words ("a", "i", "o") come through wherever that letter appears
inside any word. Training runs and its loss falls - it learns which of 0, "a", "i", "o"
follow each other - while every real word's vector stays where it was initialised, and
the nearest words printed during training never change.

Reported: "chapter_7:skip_gram and cbow programmes are wrong" -
https://github.com/nfmcclure/tensorflow_cookbook/issues/69 (the reporter: the nearest
words printed for the validation words are random and never change; the author suspected
tuning; a third user found the cause in ``text_to_numbers(sentences, word_dict)``: ``for
word in sentence`` should be ``for word in sentence.split()``, without which the id lists
come out as characters). Here in torch: the batch-123 corpus held as text
(benchmarks/real_bugs/_word_embeddings.py), the vocabulary from the words, skip-gram pairs
in a window of 2 from the id lists, 5 noise words per pair from the unigram^0.75 counts of
those ids (the cookbook's NCE loss: a sampled-noise objective too), Adam at 0.01.
Fix: split each sentence into words before the lookup.

Measured (300 steps; neighbour precision of the word vectors - each content word's 5
nearest words, the share from its own topic, chance 0.12): seed 0: 0.14 with the bug,
1.00 fixed; seeds shifted by 1000: 0.12 against 1.00. In the bug run 74% of the ids are
the rare-word id 0 (the centre ids reach the embedding as a flat batch of 256).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._word_embeddings import (SkipGram, neighbour_precision,
                                                   noise_distribution, sentences,
                                                   sgns_loss, skipgram_pairs, words)

TITLE = "chapter_7:skip_gram and cbow programmes are wrong"
LINK = "https://github.com/nfmcclure/tensorflow_cookbook/issues/69"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS",)
STEPS = 300
NOISE_WORDS, BATCH = 5, 256


def text_to_numbers(texts, word_dict, fixed):
    """Each sentence's ids, 0 for what the vocabulary lacks."""
    data = []
    for sentence in texts:
        tokens = sentence.split() if fixed else sentence    # BUG: iterates characters
        data.append([word_dict.get(token, 0) for token in tokens])
    return data


def pairs_of(id_lists):
    centre, context = [], []
    for ids in id_lists:
        c, x = skipgram_pairs(torch.tensor(ids)[None])
        centre.append(c)
        context.append(x)
    return torch.cat(centre), torch.cat(context)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    vocabulary = words(rng)
    ids, _ = sentences(3000, rng)
    texts = [" ".join(vocabulary[i] for i in row) for row in ids.tolist()]
    word_dict = {w: i for i, w in enumerate(vocabulary) if i > 0}  # built from split words
    id_lists = text_to_numbers(texts, word_dict, fixed)
    centre, context = pairs_of(id_lists)
    noise = noise_distribution(torch.cat([torch.tensor(x) for x in id_lists]))
    model = SkipGram()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
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
    mon.unknown_share = round(sum(x.count(0) for x in id_lists) /
                              sum(len(x) for x in id_lists), 2)
    return mon
