"""An encoder-decoder Transformer set up as the annotated transformer does - Adam built with
``lr=1.0`` because the Noam schedule (a LambdaLR) multiplies it by
``d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)`` - with the schedule left out.
Adam then takes steps at a rate of 1.0, forty times the schedule's peak (0.025 here): the
updates throw the weights far off, the loss swings instead of settling, and the model
translates nothing.

Reported: "-decay_method noam" - https://github.com/OpenNMT/OpenNMT-py/issues/869 ("I tried
Transformer without [ -decay_method noam] , and the training does not work at all", with
Adam and -learning_rate 2, the Noam factor; the maintainer: it should work "with a regular
Adam optimizer / adequate learning rate"). Here the tutorial's layout (1 encoder and 1
decoder layer, d_model 32, 4 heads) on a toy translation of 8-digit sentences through a
fixed dictionary, written in reverse order; batches of 32 fresh sentences, teacher forcing
with SOS-shifted decoder inputs.
Fix: the LambdaLR with the Noam rate (factor 1, warm-up 50 steps), stepped every batch.

Measured (held-out exact match of greedy translations, 500 sentences): 0.000 with the bug,
0.956 fixed; seeds + 1000: 0.000 vs 0.864.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._annotated_transformer import (D_MODEL, VOCAB, exact_match,
                                                         held_out, make_batch, make_model,
                                                         rate, sentences)

TITLE = "-decay_method noam"
LINK = "https://github.com/OpenNMT/OpenNMT-py/issues/869"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = None
    if fixed:            # BUG when not fixed: no schedule, so Adam runs at lr=1.0 throughout
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
            if scheduler is not None:
                scheduler.step()
            mon.step(loss)
    mon.held_out_exact_match = exact_match(model, held_out())
    return mon
