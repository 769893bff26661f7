"""Hand-written early stopping counts the epochs whose validation loss did not improve, but
never resets the count when it does improve: the run stops once that many bad epochs have
occurred in total, not in a row. A noisy validation curve that is still falling stops the
run long before it has converged.

Reported: "reset k_patience if val_loss is improving" -
https://github.com/ilaria-manco/music-audio-tagging-pytorch/pull/6 (merged; before it the
loop did ``if not is_val_improving: k_patience += 1`` and ``if k_patience > patience * 3:
break`` with no reset). Here a digits MLP under SGD (batches of 16), a validation pass on 60
rows every short epoch of 8 steps, patience 1 (stop after more than 3 bad epochs), at most
1200 steps.
Measured on 500 held-out digits (seed 0): the run stops after 392 steps at 85.8% accuracy
with the count never reset; reset on improvement it stops after 528 steps at 87.2% (89.4% if
it ran all 1200). The harm is modest, as early stopping's harm is: a run cut short.
Fix: set the count back to 0 whenever the validation loss improves.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "reset k_patience if val_loss is improving"
LINK = "https://github.com/ilaria-manco/music-audio-tagging-pytorch/pull/6"
EXPECTED = ("EARLY_STOPPED_WHILE_IMPROVING",)
STEPS = 1200
EPOCH = 8
PATIENCE = 1
HELD_OUT = 500
VALIDATION = 60


def train(fixed=False, steps=STEPS, **watch):
    """The monitor, the trained model and the steps it ran."""
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    x_val, y_val = x[:VALIDATION], y[:VALIDATION]
    x, y = x[VALIDATION:], y[VALIDATION:]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    k_patience, best_val, done = 0, float("inf"), 0
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x, y, steps, batch_size=16), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
            if val_loss is None:
                continue
            if val_loss.item() < best_val:
                best_val = val_loss.item()
                if fixed:
                    k_patience = 0       # BUG (unfixed): never reset on improvement
            else:
                k_patience += 1
            if k_patience > PATIENCE * 3:
                break
    return mon, model, done


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model, done = train(fixed)
    x, y = classification()
    with torch.no_grad():
        return done, (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean().item()


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
