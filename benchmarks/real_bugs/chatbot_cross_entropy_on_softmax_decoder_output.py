"""The chatbot tutorial's attention decoder ends in ``F.softmax`` (its loss, ``maskNLLLoss``,
takes ``-log`` of the gathered probability); swapping that hand-written masked loss for
``nn.CrossEntropyLoss(ignore_index=PAD_token)`` - the natural simplification - feeds the
decoder's probabilities to a loss that applies log-softmax again. Probabilities in [0, 1]
make nearly flat logits: the gradient shrinks to a sliver, the loss stalls far above zero
and the model learns slowly and badly. Nothing errors and the loss still falls a little.

Reported: "Chatbot loss function with ignore_index instead of target's padding mask cause
that model doesn't converge" - https://github.com/pytorch/tutorials/issues/663 (the reporter
replaces the tutorial's ``maskNLLLoss(decoder_output, target, mask)`` by
``CrossEntropyLoss(ignore_index=PAD_token)`` on the same ``decoder_output`` - the tutorial
decoder's softmax output - and the model "doesn't converge"; the comparison of the two
loss curves is posted in the thread). Here the tutorial's batched GRU encoder-decoder with
Luong attention (benchmarks/real_bugs/_seq2seq_tutorials.py) learns batch 163's reversed
word-by-word translation, teacher forced, one loss per decoding step summed over the steps,
gradients clipped at 50, Adam. Fix: ``ignore_index`` kept, but given log-probabilities
(``NLLLoss(ignore_index=PAD)`` on ``log`` of the softmax output; equivalently
``CrossEntropyLoss`` on the logits).

Measured (300 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences): seed 0, 0.004 for the bug against 0.884 for the fixed twin; seeds shifted by
1000, 0.152 against 0.912.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._seq2seq_tutorials import (Decoder, Encoder, Seq2Seq, Vocab, batch,
                                                     data, held_out_exact_match, source_keep)

TITLE = ("Chatbot loss function with ignore_index instead of target's padding mask cause "
         "that model doesn't converge")
LINK = "https://github.com/pytorch/tutorials/issues/663"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 300


class SoftmaxDecoder(Decoder):
    """The tutorial's LuongAttnDecoderRNN: it returns probabilities."""

    def step(self, token, hidden, outputs, keep):
        logits, hidden = super().step(token, hidden, outputs, keep)
        return F.softmax(logits, dim=1), hidden


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab()
    train, held_out = data(vocab, seed=0)
    model = Seq2Seq(Encoder(), SoftmaxDecoder(vocab.size))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if fixed:
        criterion = nn.NLLLoss(ignore_index=vocab.pad)
    else:
        criterion = nn.CrossEntropyLoss(ignore_index=vocab.pad)   # BUG: on probabilities
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            source, dec_in, labels = batch(train, index, vocab)
            outputs, hidden = model.encoder(source)
            keep = source_keep(source)
            loss = 0
            for t in range(labels.shape[1]):
                probs, hidden = model.decoder.step(dec_in[:, t:t + 1], hidden, outputs, keep)
                scores = torch.log(probs) if fixed else probs
                loss = loss + criterion(scores, labels[:, t])
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 50.0)
            optimizer.step()
            mon.step(loss)
    mon.held_out_exact_match = held_out_exact_match(model.encoder, model.decoder, held_out,
                                                    vocab)
    return mon
