"""A MusicGen-style decoder over K parallel codebook streams trained with one cross-entropy
over logits.view(-1, vocab) and labels.view(-1): the decoder lays its logits out as
(batch * codebooks, length, vocab) while the labels are (batch, length, codebooks), so the
two flattenings disagree and each logit is scored against another step's, another stream's
token. The loss falls a little (the streams' token frequencies) and the model learns
almost nothing of the music.

Reported: "Add training compatibility for Musicgen-like models" -
https://github.com/huggingface/transformers/pull/29802 (replaces MusicgenForConditional-
Generation's `loss_fct(logits.view(-1, self.config.vocab_size), labels.view(-1))`, which the
maintainer called "the current loss computation is wrong" in #28986, by a per-codebook
cross-entropy: `logits[:, codebook]` against `labels[..., codebook]`). Here a 2-layer causal
transformer reading 4 token streams (synthetic melodies over 24 pitches; streams 1-3 echo
stream 0 on every other step), Adam 3e-3, 250 steps of 32 windows. Fix: flatten the labels
in the logits' order, labels.transpose(1, 2).reshape(-1) (one loss per codebook).

Measured harm (held-out next-step accuracy over the 4 streams, 512 clips): 0.08 vs 0.37;
seeds + 1000: 0.08 vs 0.35.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._music import PITCHES, CodebookDecoder, codebook_streams, row_batches

TITLE = "Add training compatibility for Musicgen-like models"
LINK = "https://github.com/huggingface/transformers/pull/29802"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 250


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train = codebook_streams(2048, seed=0)
    model = CodebookDecoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for codes in row_batches(train, steps):
            logits = model(codes[:, :-1])                    # (batch * K, length, vocab)
            labels = codes[:, 1:]                            # (batch, length, K)
            if fixed:
                labels = labels.transpose(1, 2)              # (batch, K, length)
            loss = F.cross_entropy(logits.reshape(-1, PITCHES),
                                   labels.reshape(-1))      # BUG when not fixed: (b, t, k)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
