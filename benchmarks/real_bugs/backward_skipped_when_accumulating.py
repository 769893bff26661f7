"""A training loop whose ``loss.backward()`` sits in the ``else`` of the gradient-
accumulation branch: with ``gradient_accumulation_steps > 1`` the loss is divided by the
accumulation count and never back-propagated. The optimizer still steps every few
batches, on parameters that hold no gradient, so nothing trains while the loss is
printed every step.

Reported: "About gradient accumulation in your douban_final.py" -
https://github.com/hanjanghoon/BERT_FP/issues/2 (the reporter: "if
args.gradient_accumulation_steps > 1, loss.backward() will not be excuted. But in every
step, loss.backward() should be excuted."; the maintainer: "As you said, the gradient
accumulation code is not implemented properly"). The loop there reads
``if accumulation > 1: loss = loss / accumulation`` / ``else: loss.backward()``, then
steps AdamW every ``accumulation`` batches. Here a digits MLP with 4 micro-batches of 16
per step. Fix: divide, then call backward() on every micro-batch.

Measured (150 optimizer steps, the last 297 digits held out): accuracy 0.10 with the
backward skipped (the weights never move), 0.87 with it.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "About gradient accumulation in your douban_final.py"
LINK = "https://github.com/hanjanghoon/BERT_FP/issues/2"
EXPECTED = ("NO_GRADIENT", "PARAMS_NOT_UPDATING")
STEPS = 150             # optimizer steps
ACCUMULATION = 4        # micro-batches per optimizer step
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    loss_fn = nn.CrossEntropyLoss()
    micro = batches(x[:-HELD_OUT], y[:-HELD_OUT], steps * ACCUMULATION, batch_size=16)
    with nd.watch(model, optimizer, **watch) as mon:
        optimizer.zero_grad()
        for index, (xb, yb) in enumerate(micro):
            loss = loss_fn(model(xb), yb)
            if ACCUMULATION > 1:
                loss = loss / ACCUMULATION
                if fixed:
                    loss.backward()
            else:       # BUG (fixed=False): backward only when not accumulating
                loss.backward()
            if (index + 1) % ACCUMULATION == 0:
                optimizer.step()
                optimizer.zero_grad()
                mon.step(loss * ACCUMULATION)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
        mon.held_out_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
