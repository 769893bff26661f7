"""A Transformer translator written by hand whose attention masks are applied with
``scores.masked_fill(mask == 0, -e)`` where ``e`` is a tiny constant (1e-12): a masked score
becomes -1e-12, no lower than the scores around it, so the softmax reads the masked
positions like any other. Neither mask does anything: the decoder's subsequent mask no
longer hides the future, so in training each decoder position reads the very target token
it must predict from the decoder input, and the source padding is read as well. The loss
falls fast (the answer is in the input) and nothing errors; translating one token at a
time, where there is no future to read, fails.

Reported: "Masked attention" - https://github.com/hyunwoongko/transformer/issues/10 (the
reporter: in ``ScaleDotProductAttention.forward`` the masked scores should be set to -inf,
as in section 3.2.3 of Vaswani et al., not to ``-e``; the maintainer agreed and changed the
fill to a large negative value). Here a two-block encoder-decoder
(benchmarks/real_bugs/_s2s163.py) learns a word-by-word translation written in reverse
order, source and target with vocabularies of their own; Adam. Fix: fill the masked scores
with -1e9.

Measured (400 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences, every word and the end token in place): seed 0, 0.00 for the bug against 1.00
for the fixed twin; seeds shifted by 1000, 0.00 against 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._s2s163 import (Transformer, Vocab, batch, data, exact_match,
                                          greedy_transformer, source_keep, target_keep,
                                          translate_all)

TITLE = "Masked attention"
LINK = "https://github.com/hyunwoongko/transformer/issues/10"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab(pad=0, sos=1, eos=2)
    train, held_out = data(vocab, seed=0)
    fill = -1e9 if fixed else -1e-12     # BUG: -e, e = 1e-12: a "masked" score of ~0
    model = Transformer(vocab.size)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            source, dec_in, labels = batch(train, index, vocab)
            src_keep = source_keep(source)
            memory = model.encode(source, src_keep, fill)
            logits = model.decode(memory, src_keep, dec_in, target_keep(dec_in, vocab.pad),
                                  fill)
            loss = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=vocab.pad)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    outputs = translate_all(lambda s: greedy_transformer(model, s, vocab, fill), held_out)
    mon.held_out_exact_match = exact_match(outputs, held_out, vocab)
    return mon
