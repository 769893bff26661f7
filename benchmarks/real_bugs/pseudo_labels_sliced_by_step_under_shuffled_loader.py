"""Label correction for noisy labels whose corrected (pseudo) labels, computed once per
epoch for the whole training set in dataset order, are read for each batch as the slice
``pseudo[step * batch : (step + 1) * batch]`` while the loader shuffles. Every batch's
images are a random draw from the dataset, but the pseudo labels paired with them are
those of rows ``step * batch ...`` in dataset order: the correction term of the loss,
half of it, trains on labels that belong to other images. The loss falls (the noisy-label
half still fits), nothing errors; the correction meant to clean the labels injects far
more noise than it removes.

Reported: "According to my research, this paper has been re-implemented by USC---in the
paper NoiseRank: Unsupervised label noise..." - https://github.com/sarsbug/SMP/issues/1
(a user pointed out that in the re-implementation of Self-Learning with Multi-Prototypes,
``ClassificationNet.fit`` builds a shuffling loader yet takes each batch's pseudo labels
as the slice of rows from ``step * batch_size``, so the batch's samples and their pseudo
labels cannot be matched up; the fix is to carry each sample's index, or its pseudo
label, through the loader). Here: an MLP on the 8x8 digits (1,300 training images, 40%
pair noise - each corrupted label moved to the next class - 497 clean held-out images),
Adam, ten warm-up epochs on the noisy labels, then every epoch a pseudo label per image
from its nearest class prototype in the hidden features (prototype: the mean of the
densest half of the images carrying that noisy label) and the loss ``0.5 * CE(noisy) +
0.5 * CE(pseudo)``. Fix: the pseudo labels read at the batch's dataset indices.

Measured (2,000 steps, batch 64): held-out accuracy at seed 0, 0.73 for the bug against
0.85 for the fixed twin; seeds shifted by 1000, 0.66 against 0.84. (Under symmetric noise
the misread pseudo labels are just more uniform noise, which cross-entropy averages out -
0.95 against 0.91 at seed 0 - so the harm shows with class-dependent noise, the kind
label correction is for.)
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._noisy_labels import accuracy, digits_split, pair_noise

TITLE = ("According to my research, this paper has been re-implemented by USC---in the "
         "paper NoiseRank: Unsupervised label noise...")
LINK = "https://github.com/sarsbug/SMP/issues/1"
EXPECTED = ("PER_EXAMPLE_STATE_INDEXED_BY_BATCH_POSITION",)
STEPS = 2000
NOISE = 0.4
BATCH = 64
WARM_UP_EPOCHS = 10
ALPHA = 0.5


def pseudo_labels(model, x, noisy, classes=10):
    """Nearest class prototype (cosine) in the hidden features, for every training row."""
    with torch.no_grad():
        features = F.normalize(model[1](model[0](x)), dim=1)
        prototypes = []
        for c in range(classes):
            members = features[noisy == c]
            centre = F.normalize(members.mean(dim=0), dim=0)
            order = (members @ centre).argsort(descending=True)
            dense = members[order[:max(1, len(members) // 2)]]
            prototypes.append(F.normalize(dense.mean(dim=0), dim=0))
        return (features @ torch.stack(prototypes).T).argmax(dim=1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split()
    noisy, _ = pair_noise(y, NOISE)
    model = mlp(hidden=256)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    per_epoch = len(x) // BATCH
    pseudo = None
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(x), steps, BATCH)):
            epoch, within = divmod(step, per_epoch)
            if epoch >= WARM_UP_EPOCHS and within == 0:
                pseudo = pseudo_labels(model, x, noisy)
            logits = model(x[index])
            loss = F.cross_entropy(logits, noisy[index])
            if pseudo is not None:
                if fixed:
                    batch_pseudo = pseudo[index]
                else:
                    batch_pseudo = pseudo[within * BATCH:(within + 1) * BATCH]   # BUG
                loss = (1 - ALPHA) * loss + ALPHA * F.cross_entropy(logits, batch_pseudo)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
