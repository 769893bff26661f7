"""A Transformer translator whose target mask is built with the SOURCE padding id: the
decoder's key mask is ``trg != src_pad_idx``. Source and target have vocabularies of their
own; here the source pads with id 0 while the target vocabulary puts its start token at 0
and pads with id 2. So the target's padding is never masked (harmless behind the
subsequent mask) and its start token - the first decoder input of every sentence - is
masked as padding: no decoder position may read it, and the first position, whose only
readable key it was, has every score masked and attends uniformly to the whole target
sentence, future included. Training runs, the loss falls, nothing errors.

Reported: "Potential bug in the pad mask" - https://github.com/hyunwoongko/transformer/issues/11
(the reporter: in the ``Transformer`` class ``trg_pad_idx`` is not used, ``src_pad_idx``
builds both the source and the target pad masks, which misbehaves when the two differ;
the maintainer asked for a PR and one was merged). Here a two-block encoder-decoder
(benchmarks/real_bugs/_s2s163.py) learns a word-by-word translation written in reverse
order; Adam. Fix: the target mask built with the target's padding id.

Measured (400 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences, every word and the end token in place): seed 0, 0.85 for the bug against 1.00
for the fixed twin; seeds shifted by 1000, 0.63 against 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._s2s163 import (SRC_PAD, Transformer, Vocab, batch, data,
                                          exact_match, greedy_transformer, source_keep,
                                          target_keep, translate_all)

TITLE = "Potential bug in the pad mask"
LINK = "https://github.com/hyunwoongko/transformer/issues/11"
EXPECTED = ("FUTURE_LEAK", "PAD_ID_FROM_OTHER_VOCABULARY")
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab(pad=2, sos=0, eos=1)       # the target vocabulary's own layout
    trg_pad = vocab.pad if fixed else SRC_PAD    # BUG: the source's pad id for the target

    def trg_keep(dec_in, _pad):
        return target_keep(dec_in, trg_pad)

    train, held_out = data(vocab, seed=0)
    model = Transformer(vocab.size)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            source, dec_in, labels = batch(train, index, vocab)
            src_keep = source_keep(source)
            memory = model.encode(source, src_keep)
            logits = model.decode(memory, src_keep, dec_in, trg_keep(dec_in, None))
            loss = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=vocab.pad)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    outputs = translate_all(lambda s: greedy_transformer(model, s, vocab, tgt_keep=trg_keep),
                            held_out)
    mon.held_out_exact_match = exact_match(outputs, held_out, vocab)
    return mon
