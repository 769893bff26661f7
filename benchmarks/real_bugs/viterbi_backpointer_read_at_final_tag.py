"""A BiLSTM-CRF tagger whose Viterbi decoder walks its back-pointers wrongly: at each step
back it reads the back-pointer table at the tag chosen for the LAST word, instead of at
the tag it has just recovered, so each recovered tag is "the best predecessor of the final
tag" rather than a link of one path. Training is untouched (the forward algorithm is
right); only the decoded tags are wrong, wherever the best tag of a word depends on the
tag after it.

Reported: "fixed a viterbi decode bug" -
https://github.com/threelittlemonkeys/lstm-crf-pytorch/pull/5 (the decoder looked up
``bptr_t[best_tag]`` on every step without assigning the result back to ``best_tag``, so
the newest tag was never used for the next step; the fix chains it,
``best_tag = bptr_t[best_tag]``). Here: the hand-written CRF of
benchmarks/real_bugs/_crf_tagging.py (``viterbi(chained=...)``) on synthetic BIO sentences
whose entity type shows only in the entity's last word, so B-PER against B-LOC is settled
by the path.
Fix: read each back-pointer at the tag recovered one step later.

Measured (300 Adam steps, batch 32, entity F1 on 400 held-out sentences): seed 0, 0.809
with the bug against 0.892 fixed; seeds shifted by 1000, 0.845 against 0.901 (the model is
the same; only the decoding differs).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._crf_tagging import (BiLstmCrf, data, held_out_f1, index_batches,
                                               length_mask, trimmed)

TITLE = "fixed a viterbi decode bug"
LINK = "https://github.com/threelittlemonkeys/lstm-crf-pytorch/pull/5"
EXPECTED = ("VITERBI_BACKTRACK_NOT_CHAINED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), held = data()
    model = BiLstmCrf()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, tags, lengths, index)
            loss = -model.log_likelihood(model(words, size), gold,
                                         length_mask(size, words.shape[1])).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    # BUG (fixed=False): each back-pointer read at the final tag, never at the one recovered
    mon.held_out_f1 = held_out_f1(model, held, chained=fixed)
    return mon
