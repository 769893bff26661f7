"""Training in stages (one per learning rate), each stage drawing a new random
train/validation split from the same pool: from the second stage on, the validation set
holds samples the model was already trained on, and the validation loss flatters it.

Reported: "Validation data is used for training" -
https://github.com/godardt/planet-amazon-deforestation/issues/12 ("The validation data is
sampled in train_model and in the notebook train_model is called several times, therefore
validating on data that was previously used for training"; the author: "Indeed we should
have the same validation set for each pass in the for loop. Good catch!"). Here an MLP on a
small part of the digits, trained in three stages (lr 1e-2, 1e-3, 1e-4), each splitting the
pool 80/20 anew and passing the validation loss to the monitor once per epoch. Fix: split
once, before the stages.

Why watch misses it: watch fingerprints each validation pass's inputs (their rows, sum
and sum of squares), so it sees that the set changed at each stage, but not which of the
new validation samples were trained on before (that would take every training batch's
rows). The validation loss jumps where the third split came (0.16 to 0.20) while the
training loss falls, which OVERFITTING used to name; it now compares validation losses of
one set only, and stays silent.
"""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Validation data is used for training"
LINK = "https://github.com/godardt/planet-amazon-deforestation/issues/12"
EXPECTED = ("VALIDATION_OVERLAPS_TRAINING",)
STEPS = 150                  # over all stages
POOL = 600                   # samples the notebook splits (a small pool: overlap matters)
STAGE_LRS = (1e-2, 1e-3, 1e-4)
BATCH = 32


def split(n, generator):
    """80/20 indices of a random split of range(n)."""
    order = torch.randperm(n, generator=generator)
    cut = int(0.8 * n)
    return order[:cut], order[cut:]


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:POOL], y[:POOL]
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=STAGE_LRS[0])
    generator = torch.Generator().manual_seed(0)
    once = split(POOL, generator)
    per_stage = steps // len(STAGE_LRS)
    epoch_steps = int(0.8 * POOL) // BATCH
    with nd.watch(model, optimizer, **watch) as mon:
        for stage, lr in enumerate(STAGE_LRS):
            for group in optimizer.param_groups:
                group["lr"] = lr
            train, val = once if fixed else split(POOL, generator)   # BUG: a new split per stage
            for done, (xb, yb) in enumerate(batches(x[train], y[train], per_stage, BATCH,
                                                    seed=stage), start=1):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                val_loss = None
                if done % epoch_steps == 0 or done == per_stage:
                    with torch.no_grad():
                        val_loss = F.cross_entropy(model(x[val]), y[val])
                mon.step(loss, val_loss=val_loss)
    return mon
