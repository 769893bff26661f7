"""A BiLSTM-CRF tagger over subword pieces, trained correctly on each word's first piece,
whose decoder misreads the first-piece mask: it takes the mask only as a count and decodes
the first ``mask.sum()`` PIECES of the sentence, not the masked ones. Wherever a word was
split, every later word's tag comes from the emissions of another piece (a continuation
piece, or the word before), so the tags slide against the words from the first split on.
Training is untouched; only the decoded tags are wrong.

Reported: "Wrong Mask Usage in CRF Decoding" -
https://github.com/allenai/allennlp/issues/3523
(the CRF's Viterbi "takes a mask as an argument, but it doesn't really use it as a mask -
it just truncates the sequence to the number of masked positions"; the reporter hit it
while ignoring non-initial wordpieces in training and decoding; fixed in
https://github.com/allenai/allennlp/pull/3522 by decoding the masked positions). Here: the
hand-written CRF of benchmarks/real_bugs/_crf_tagging.py on its synthetic BIO sentences,
four words in ten followed by a continuation piece (the split of
benchmarks/real_bugs/crf_mask_with_holes_for_subword_pieces.py); training gathers the
first pieces' emissions to the left and uses the words' length mask, in both runs.
Fix: decode the first pieces (gather the masked positions), not the first mask.sum()
positions.

Measured (150 Adam steps, batch 32, entity F1 of the Viterbi paths on 400 held-out
sentences, the same trained model in both runs): seed 0, 0.205 with the bug against 0.915
fixed; seeds shifted by 1000, 0.206 against 0.891.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._crf_tagging import (VOCAB, BiLstmCrf, data, entity_f1,
                                               gold_lists, index_batches, length_mask)
from benchmarks.real_bugs.crf_mask_with_holes_for_subword_pieces import (PIECES, gathered,
                                                                         split_into_pieces)

TITLE = "Wrong Mask Usage in CRF Decoding"
LINK = "https://github.com/allenai/allennlp/issues/3523"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 150


@torch.no_grad()
def held_out_f1(model, held, fixed, batch_size=100):
    pieces, _, first, counts, tags, lengths = held
    model.eval()
    predicted = []
    for start in range(0, len(pieces), batch_size):
        index = torch.arange(start, min(start + batch_size, len(pieces)))
        width = int(counts[index].max())
        emissions = model(pieces[index, :width], counts[index])
        mask = first[index, :width]
        if fixed:           # the masked positions: each word's first piece
            words = gathered(emissions, mask, int(lengths[index].max()))
        else:               # BUG: the mask taken as a count: the first mask.sum() pieces
            words = emissions
        predicted += model.viterbi(words, mask.sum(1))
    model.train()
    return entity_f1(predicted, gold_lists(tags, lengths))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), (held_ids, held_tags, held_lengths) = data()
    pieces, _, first, counts = split_into_pieces(ids, tags, lengths, seed=2)
    held = split_into_pieces(held_ids, held_tags, held_lengths, seed=3) + \
        (held_tags, held_lengths)
    model = BiLstmCrf(vocab=VOCAB + PIECES)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            width = int(counts[index].max())
            emissions = model(pieces[index, :width], counts[index])
            size = lengths[index]
            words = int(size.max())
            words_emissions = gathered(emissions, first[index, :width], words)
            likelihood = model.log_likelihood(words_emissions, tags[index, :words],
                                              length_mask(size, words))
            loss = -likelihood.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_f1 = held_out_f1(model, held, fixed)
    return mon
