"""A sequence loss whose per-sentence lengths count the words but not the end token: the
labels hold ``words + <eos>``, but the loss mask is built from the word count, so the <eos>
position is masked like padding and the decoder is never asked to end a sentence. It
learns the words; at generation it never emits <eos> and runs on to the length limit,
repeating and inventing words. The loss on the words looks fine and nothing errors.

Reported: "Longer sequences is being generated than expexted." -
https://github.com/qkaren/Counterfactual-StoryRW/issues/11 (a model trained with the repo's
code on other data generated far longer outputs than its targets, with repetition; the
maintainer: the model should learn to generate EOS - make sure that at training time the
model does see the EOS, e.g. that the ``sequence_length`` given to the
sequence-sparse-softmax cross-entropy covers it). Here a two-block encoder-decoder
(benchmarks/real_bugs/_s2s163.py) learns a word-by-word translation written in reverse
order; the loss is masked by the lengths; Adam. Fix: the lengths count the end token.

Measured (400 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences, every word and then the end token in place): seed 0, 0.00 for the bug (the
words come out, the end token never does) against 1.00 for the fixed twin; seeds shifted
by 1000, 0.00 against 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._s2s163 import (Transformer, Vocab, batch, data, exact_match,
                                          greedy_transformer, source_keep, target_keep,
                                          translate_all)

TITLE = "Longer sequences is being generated than expexted."
LINK = "https://github.com/qkaren/Counterfactual-StoryRW/issues/11"
EXPECTED = ("END_TOKEN_NEVER_A_TARGET",)
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab(pad=0, sos=1, eos=2)
    train, held_out = data(vocab, seed=0)
    model = Transformer(vocab.size)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            source, dec_in, labels = batch(train, index, vocab)
            words = torch.tensor([len(train[i][1]) for i in index.tolist()])
            lengths = words + 1 if fixed else words     # BUG: <eos> not counted
            mask = torch.arange(labels.shape[1]) < lengths.unsqueeze(1)
            src_keep = source_keep(source)
            memory = model.encode(source, src_keep)
            logits = model.decode(memory, src_keep, dec_in, target_keep(dec_in, vocab.pad))
            per_token = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")
            loss = (per_token * mask).sum() / mask.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    outputs = translate_all(lambda s: greedy_transformer(model, s, vocab), held_out)
    mon.held_out_exact_match = exact_match(outputs, held_out, vocab)
    return mon
