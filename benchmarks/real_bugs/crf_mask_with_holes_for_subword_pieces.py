"""A BiLSTM-CRF tagger over subword pieces whose CRF is given a mask with holes: only each
word's first piece is tagged (the later pieces carry tag 0 and mask 0, as a tokenizer's
"label the first subtoken" scheme leaves them), and that mask goes straight into a CRF
written for length masks (ones, then zeros). The forward algorithm carries its scores over
the holes, but the gold path's score reads each transition from the tag at the previous
POSITION - the 0 of a masked piece - not from the previous word's tag, and takes the end
score at position ``mask.sum() - 1``. The two halves of the loss score different paths;
the transitions learn the wrong pairs and the tagger learns worse.

Reported: "Transition score for masked timesteps" -
https://github.com/kmkurn/pytorch-crf/issues/53 (the reporter, with masked values in
between timesteps, asked whether the gold score should also multiply by the previous
step's mask; the maintainer answered that the mask is assumed to be a length mask - ones
followed by zeros - and that a mask with holes is not what the layer computes). Here: the
hand-written CRF of benchmarks/real_bugs/_crf_tagging.py on the synthetic BIO sentences,
four words in ten split into two pieces.
Fix: gather the first pieces' emissions and tags to the left of each row and give the CRF
the length mask of the words.

Measured (300 Adam steps, batch 32, entity F1 of the Viterbi paths of the gathered first
pieces on 400 held-out sentences, decoded alike in both runs): seed 0, 0.860 with the bug
against 0.894 fixed; seeds shifted by 1000, 0.846 against 0.891 (a modest but steady
harm: the transitions are learned from the wrong pairs, the BiLSTM's emissions carry most
of the tagging).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._crf_tagging import (VOCAB, BiLstmCrf, data, entity_f1,
                                               gold_lists, index_batches, length_mask)

TITLE = "Transition score for masked timesteps"
LINK = "https://github.com/kmkurn/pytorch-crf/issues/53"
EXPECTED = ("CRF_MASK_NOT_A_LENGTH_MASK",)
STEPS = 300
PIECES = 10                   # continuation-piece ids VOCAB .. VOCAB + 9


def split_into_pieces(ids, tags, lengths, seed):
    """Each word followed by a continuation piece with probability 0.4: piece ids, piece
    tags (0 on continuations), first-piece mask (B, 32) and piece counts."""
    rng = np.random.default_rng(seed)
    pieces = torch.zeros(len(ids), 32, dtype=torch.long)
    piece_tags = torch.zeros_like(pieces)
    first = torch.zeros_like(pieces, dtype=torch.bool)
    counts = torch.zeros(len(ids), dtype=torch.long)
    for row in range(len(ids)):
        k = 0
        for w in range(int(lengths[row])):
            word = int(ids[row, w])
            pieces[row, k], piece_tags[row, k], first[row, k] = word, tags[row, w], True
            k += 1
            if rng.random() < 0.4:
                pieces[row, k] = VOCAB + word % PIECES
                k += 1
        counts[row] = k
    return pieces, piece_tags, first, counts


def gathered(values, first, width):
    """The first pieces' rows of ``values`` (B, T, ...) moved to the left, (B, width, ...)."""
    out = values.new_zeros((len(values), width) + values.shape[2:])
    for row in range(len(values)):
        kept = values[row][first[row]]
        out[row, :len(kept)] = kept
    return out


@torch.no_grad()
def held_out_f1(model, held, batch_size=100):
    pieces, _, first, counts, tags, lengths = held
    model.eval()
    predicted = []
    for start in range(0, len(pieces), batch_size):
        index = torch.arange(start, min(start + batch_size, len(pieces)))
        width = int(counts[index].max())
        emissions = model(pieces[index, :width], counts[index])
        words = gathered(emissions, first[index, :width], int(lengths[index].max()))
        predicted += model.viterbi(words, lengths[index])
    model.train()
    return entity_f1(predicted, gold_lists(tags, lengths))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), (held_ids, held_tags, held_lengths) = data()
    pieces, piece_tags, first, counts = split_into_pieces(ids, tags, lengths, seed=2)
    held = split_into_pieces(held_ids, held_tags, held_lengths, seed=3) + \
        (held_tags, held_lengths)
    model = BiLstmCrf(vocab=VOCAB + PIECES)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            width = int(counts[index].max())
            emissions = model(pieces[index, :width], counts[index])
            if fixed:          # the words' emissions and tags, with the words' length mask
                size = lengths[index]
                words = int(size.max())
                likelihood = model.log_likelihood(
                    gathered(emissions, first[index, :width], words),
                    tags[index, :words], length_mask(size, words))
            else:              # BUG: the first-piece mask (with holes) as the CRF's mask
                likelihood = model.log_likelihood(emissions, piece_tags[index, :width],
                                                  first[index, :width])
            loss = -likelihood.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_f1 = held_out_f1(model, held)
    return mon
