"""A DETR-style set predictor whose hand-written matcher scores each (slot, object) pair
with a SIMILARITY - higher is better: the slot's probability of the object's class plus
how close the slot sits (1 minus the L1 distance) - and hands that matrix straight to
scipy's ``linear_sum_assignment``, which minimises. Without ``maximize=True`` (or a minus
sign) the solver returns the worst one-to-one pairing: each object is given the slot
that least believes in it and sits farthest away, and the slots that were already right
are told "no object". Nothing breaks and the loss still falls (the chosen slots are
dragged to their objects), but the slot assignments keep being handed to the worst
candidates, so the trained set predictor places and labels objects poorly and leaves
many duplicates.

Reported: "Fix scipy matching in `match_predictions` to maximize IoU" -
https://github.com/ultralytics/ultralytics/pull/23634 ("the cost matrix here contains
positive IoU values (higher = better match), the solver was finding the worst possible
matching"). There the IoU matrix went to the solver in the validator's matching; here
the same call sits in the training matcher of a small set predictor: scenes of one to
three objects (4 kinds, ids 0..3, 2-D positions) drawn as blobs on a per-kind 8x8 grid,
an MLP with 6 slots, cross-entropy over all slots (no-object weight 0.1) plus 5 x L1 on
the matched positions, Adam, batches of 64.
Fix: linear_sum_assignment(similarity, maximize=True).

Measured (held-out detection F1 on 512 scenes, a detection being a slot whose argmax is
not the no-object id, counted when class and position (within 0.15) agree): seed 0:
0.196 with the bug against 0.872 fixed; seeds + 1000: 0.184 vs 0.858.
"""
import numpy as np
import torch
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment

import nndebug as nd
from benchmarks.real_bugs._set317 import CLASSES, SetNet, detection_f1, scenes

TITLE = "Fix scipy matching in `match_predictions` to maximize IoU"
LINK = "https://github.com/ultralytics/ultralytics/pull/23634"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 400
BATCH = 64
EOS_COEF = 0.1
NO_OBJECT = CLASSES


def match(logits, positions, targets, fixed):
    """Per scene, (slot indices, object indices) of the pairing the solver returns."""
    indices = []
    prob = logits.detach().softmax(-1).numpy()
    for p, pos, (labels, where) in zip(prob, positions.detach().numpy(), targets):
        closeness = 1 - np.abs(pos[:, None, :] - where.numpy()[None, :, :]).sum(-1)
        similarity = p[:, labels.numpy()] + closeness          # higher = better pair
        if fixed:
            slots, objects = linear_sum_assignment(similarity, maximize=True)
        else:
            slots, objects = linear_sum_assignment(similarity)   # BUG: minimises it
        indices.append((torch.as_tensor(slots), torch.as_tensor(objects)))
    return indices


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, targets = scenes(4096 + 512, rng)
    model = SetNet(CLASSES + 1)
    empty_weight = torch.ones(CLASSES + 1)
    empty_weight[NO_OBJECT] = EOS_COEF
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = rng.integers(0, 4096, BATCH)
            batch_targets = [targets[i] for i in index]
            logits, positions = model(x[torch.from_numpy(index)])
            indices = match(logits, positions, batch_targets, fixed)
            batch_idx = torch.cat([torch.full_like(s, i) for i, (s, _) in enumerate(indices)])
            slot_idx = torch.cat([s for s, _ in indices])
            target_classes = torch.full(logits.shape[:2], NO_OBJECT, dtype=torch.int64)
            target_classes[batch_idx, slot_idx] = torch.cat(
                [t[0][j] for t, (_, j) in zip(batch_targets, indices)])
            wanted = torch.cat([t[1][j] for t, (_, j) in zip(batch_targets, indices)])
            loss = (F.cross_entropy(logits.transpose(1, 2), target_classes, empty_weight)
                    + 5 * F.l1_loss(positions[batch_idx, slot_idx], wanted))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        logits, positions = model(x[4096:])
    mon.held_out_detection_f1 = detection_f1(logits, positions, targets[4096:],
                                             no_object=NO_OBJECT)
    return mon
