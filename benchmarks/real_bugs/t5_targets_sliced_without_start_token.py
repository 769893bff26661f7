"""A seq2seq fine-tuning step that makes the decoder inputs and the labels by slicing the
target ids - ``decoder_input_ids = target_ids[:, :-1]``, ``labels = target_ids[:, 1:]`` -
a recipe that is right only when the targets begin with a start token. These targets do
not (T5's tokenizer adds none): the first word is never a label, and the decoder never
sees a start token in training. At generation the decoder is given the start token and
asked for the first word - a position it was never trained on - and everything after it
follows from that first guess. The loss on the words it is shown falls as usual; nothing
errors.

Reported: "Possible bug in preparing deocder_input_ids for T5 in seq2seq finetune.y" -
https://github.com/huggingface/transformers/issues/5987 (the reporter: ``finetune.py``'s
``_step`` slices ``target_ids[:, :-1]`` and ``target_ids[:, 1:]``, which works for BART,
whose targets start with ``<s>``, but for T5 "removes the first token from lm_labels and
adds no start token in decoder_input_ids"; fixed by building the decoder inputs with the
model's ``_shift_right(labels)``, the decoder start token in front, in
https://github.com/huggingface/transformers/pull/6654). Here a two-block encoder-decoder
(benchmarks/real_bugs/_s2s163.py) learns a word-by-word translation written in reverse
order; the target ids are the words and the end token, no start token; Adam. Fix: labels
are the target ids, decoder inputs the start token followed by the target ids shifted
right.

Measured (400 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences, every word and the end token in place): seed 0, 0.00 for the bug (the first
word, never a label, comes out wrong and the rest follow it) against 1.00 for the fixed
twin; seeds shifted by 1000, 0.00 against 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._s2s163 import (Transformer, Vocab, data, exact_match,
                                          greedy_transformer, pad_batch, source_keep,
                                          SRC_PAD, target_keep, translate_all)

TITLE = "Possible bug in preparing deocder_input_ids for T5 in seq2seq finetune.y"
LINK = "https://github.com/huggingface/transformers/issues/5987"
EXPECTED = ("FIRST_TARGET_NEVER_SUPERVISED", "LABELS_MISALIGNED")
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab(pad=0, sos=1, eos=2)
    train, held_out = data(vocab, seed=0)
    model = Transformer(vocab.size)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            chosen = [train[i] for i in index.tolist()]
            source = pad_batch([s for s, _ in chosen], SRC_PAD)
            target_ids = pad_batch([t + [vocab.eos] for _, t in chosen], vocab.pad)
            if fixed:       # shift right behind the decoder start token
                labels = target_ids
                start = torch.full_like(target_ids[:, :1], vocab.sos)
                dec_in = torch.cat([start, target_ids[:, :-1]], 1)
            else:           # BUG: BART's slicing on targets that have no start token
                dec_in, labels = target_ids[:, :-1], target_ids[:, 1:]
            src_keep = source_keep(source)
            memory = model.encode(source, src_keep)
            logits = model.decode(memory, src_keep, dec_in, target_keep(dec_in, vocab.pad))
            loss = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=vocab.pad)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    outputs = translate_all(lambda s: greedy_transformer(model, s, vocab), held_out)
    mon.held_out_exact_match = exact_match(outputs, held_out, vocab)
    return mon
