"""An encoder-decoder Transformer trained with the annotated transformer's Noam schedule as a
LambdaLR - whose lambda returns ``d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)``,
a factor that LambdaLR MULTIPLIES the optimizer's rate by - on an Adam built with a usual
fine-tuning rate of 5e-5 instead of the tutorial's ``lr=1.0``. The schedule's peak of about
0.025 becomes 1.2e-6: the weights barely move in the run and the model learns next to
nothing.

Reported: "Noam scheduler 的 lr" - https://github.com/thu-coai/CDial-GPT/issues/52 (in
translation: with the noam scheduler the initial lr should be 1, since the lambda's value
multiplies it; 5e-5 "seems to make the lr 20000 times smaller than expected"; the
maintainers answered that for their pre-training the small peak was intended). Here the
tutorial's layout (1 encoder and 1 decoder layer, d_model 32, 4 heads, warm-up 50 steps,
Adam betas (0.9, 0.98)) on a toy translation of 8-digit sentences through a fixed
dictionary, written in reverse order; batches of 32 fresh sentences, teacher forcing with
SOS-shifted decoder inputs. Fix: ``Adam(..., lr=1.0)`` under the same LambdaLR.

Measured (held-out exact match of greedy translations, 500 sentences): 0.000 with the bug,
0.956 fixed; seeds + 1000: 0.000 vs 0.864.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._annotated_transformer import (D_MODEL, VOCAB, exact_match,
                                                         held_out, make_batch, make_model,
                                                         rate, sentences)

TITLE = "Noam scheduler 的 lr"
LINK = "https://github.com/thu-coai/CDial-GPT/issues/52"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = make_model()
    base_lr = 1.0 if fixed else 5e-5        # BUG: the schedule's factor multiplies 5e-5
    optimizer = torch.optim.Adam(model.parameters(), lr=base_lr, betas=(0.9, 0.98), eps=1e-9)
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
