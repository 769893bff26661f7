"""A pointer-generator summariser whose copy distribution is scattered onto the FIXED
vocabulary: the article's out-of-vocabulary words (rare names), whose extended ids
(vocabulary size + k) ran past the end of the vocabulary distribution and raised an index
error, are "patched" to the UNK id, and so are the summaries' names, so the loss runs.
Every copied name now lands on UNK: the model learns, with a nicely falling loss, to write
UNK wherever a summary should copy a name - exactly the words a pointer-generator exists
to copy.

Reported: "Index of Out Bound Error in doing scatter_add when we have OOV words" -
https://github.com/atulkum/pointer_summarizer/issues/8 ("Is it better to patch those
wordID to zero if it is larger than the size of Vocab?"; the maintainer: "Yes you are
right"; id 0 is that project's UNK). Here the ``_summ348`` task (articles of 5 to 14
words; summaries are the 2 to 4 content words in order, common words paraphrased from the
vocabulary, rare names copied) and its pointer-generator (bidirectional LSTM encoder,
LSTM-cell decoder with input feeding, additive attention, p_gen mixture), Adam 5e-3,
batches of 32, 300 steps.

Fix: keep the extended ids: append max_oov zero columns to p_gen * P_vocab (the batch's
"extra zeros"), scatter_add the copy mass onto the articles' extended ids, and score the
summaries' names at their extended ids.

Measured (held-out summaries decoded greedily word for word, EOS included, 500
articles): 0.240 with the bug, 0.998 fixed; seeds + 1000: 0.296 vs 1.000.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._summ348 import (UNK, VOCAB, PointerGenerator, batch, data,
                                           exact_match, summary_nll)

TITLE = "Index of Out Bound Error in doing scatter_add when we have OOV words"
LINK = "https://github.com/atulkum/pointer_summarizer/issues/8"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS",)
STEPS = 300


class PatchedCopy(PointerGenerator):
    def final_distribution(self, vocab_dist, attn, p_gen, src_ext, max_oov):
        # BUG: OOV copy ids patched to UNK, no extra zeros: names can only be copied as UNK
        copy_ids = src_ext.masked_fill(src_ext >= VOCAB, UNK)
        return (p_gen * vocab_dist).scatter_add(1, copy_ids, (1 - p_gen) * attn)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = data()
    model = PointerGenerator() if fixed else PatchedCopy()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=32, seed=0):
            b = batch(train, index)
            target = b["target"]
            if not fixed:       # the summaries' names patched to UNK too, so gather runs
                target = target.masked_fill(target >= VOCAB, UNK)
            final, _ = model(b)
            loss = summary_nll(final, target, b["tgt_mask"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_exact_match = exact_match(model, held)
    return mon
