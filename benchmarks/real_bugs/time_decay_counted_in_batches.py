"""Keras' optimizer ``decay`` argument - lr_t = lr / (1 + decay * t) - counts t in updates
(batches), not in epochs, and a value chosen as if per epoch shrinks the rate about
batches-per-epoch times faster than meant: a few epochs in, the rate is a small fraction of
the tuned one and learning stalls well short of where the undecayed run goes.

Reported: "the decay may not work correct" - https://github.com/keras-team/keras/issues/8086
("I see the formula some other places LearningRate = LearningRate * 1/(1 + decay * epoch)
... when I increase decay a lit bit to decay=2e-5, the results become very different
(accuracy drop 10%), and when I increase to decay=1e-4, the accuracy drop 30%"). Why, in
keras-team/keras#9938 and #2808: the update is ``lr * (1. / (1. + self.decay *
self.iterations))`` and iterations counts "a batch update". Here a digits MLP, SGD at 0.05
with momentum 0.9, and decay=0.5 meant per epoch (28 batches an epoch), written as Keras
computes it: a LambdaLR stepped every batch.

Measured (300 steps, 297 held-out digits): the bug's held-out accuracy 0.70 and last-20
training loss 2.05 (2.31 at the start), its rate at the end 0.05 / 151; the fixed twin (the
same decay counted in epochs, 0.05 / 6.5 at the end) 0.87 and 0.18.
Fix: count t in epochs (a LambdaLR stepped once an epoch, or t = iteration //
batches_per_epoch), or choose decay per update: 0.5 / 28 here.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "the decay may not work correct"
LINK = "https://github.com/keras-team/keras/issues/8086"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_TOO_LOW")
STEPS = 300
LR, DECAY = 0.05, 0.5                  # decay meant per epoch
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    per_epoch = (len(x) - HELD_OUT) // 64
    if fixed:
        time_of = lambda update: update // per_epoch                          # noqa: E731
    else:
        time_of = lambda update: update                     # BUG: Keras counts updates
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda update: 1.0 / (1.0 + DECAY * time_of(update)))
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            schedule.step()                        # every update, as Keras applies it
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
