"""An encoder-decoder Transformer written after the annotated transformer, whose Embeddings
module returns ``self.lut(x)`` without the tutorial's ``* math.sqrt(self.d_model)``. The
tutorial Xavier-initialises every matrix, the embedding tables too, so a token's vector
starts with entries of about 0.15 while the sinusoidal positional encoding added to it has
entries of up to 1 (rms 0.7): the sum the first layer reads is mostly position, and the
tokens' own identity has to grow out of a small share of it. The run trains and its loss
falls, but the held-out translations come out worse.

Reported: "A question in class Embeddings(nn.Module)" -
https://github.com/harvardnlp/annotated-transformer/issues/60 ("I find that the test
result will be bad if I don't multiply math.sqrt(self.d_model)"). Here the tutorial's
layout (1 encoder and 1 decoder layer, d_model 64, 4 heads, Noam warm-up over 50 steps,
Adam betas (0.9, 0.98), Xavier-uniform init of every matrix) on a toy translation of 8-digit
sentences through a fixed dictionary, written in reverse order; batches of 32 fresh
sentences, teacher forcing with SOS-shifted decoder inputs.
Fix: ``return self.lut(x) * math.sqrt(self.d_model)``.

Measured (held-out exact match of greedy translations, 500 sentences): 0.008 with the bug,
0.846 fixed; seeds + 1000: 0.668 vs 0.908.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._annotated_transformer import (VOCAB, Embeddings, exact_match,
                                                         held_out, make_batch, make_model,
                                                         rate, sentences)

TITLE = "A question in class Embeddings(nn.Module)"
LINK = "https://github.com/harvardnlp/annotated-transformer/issues/60"
EXPECTED = ("INIT_SCALE_TOO_SMALL",)
STEPS = 200
D_MODEL = 64                                 # this script's width (the shared default is 32)


class UnscaledEmbeddings(Embeddings):
    def forward(self, x):
        return self.lut(x)                   # BUG: no * math.sqrt(self.d_model)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = make_model(d_model=D_MODEL, d_ff=2 * D_MODEL,
                       embeddings=Embeddings if fixed else UnscaledEmbeddings)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: rate(step, D_MODEL, factor=1.0, warmup=50))
    with nd.watch(model, optimizer, **watch) as mon:
        for source in sentences(steps, batch_size=32):
            src, decoder_input, target, src_mask, tgt_mask = make_batch(source)
            optimizer.zero_grad()
            log_probs = model(src, decoder_input, src_mask, tgt_mask)
            loss = F.nll_loss(log_probs.reshape(-1, VOCAB), target.reshape(-1))
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    mon.held_out_exact_match = exact_match(model, held_out())
    return mon
