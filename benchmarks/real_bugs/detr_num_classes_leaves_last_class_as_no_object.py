"""A DETR-style set predictor trained on a dataset whose class ids start at 1 (1..4, the
COCO habit), with ``num_classes`` set to the number of kinds (4). The head has
``num_classes + 1`` logits and the no-object class is the last one, id ``num_classes``
= 4 - which is also the id of the fourth real kind. Every slot left unmatched is told
"class 4", every object of kind 4 is told "class 4" too, and that shared class carries
the small no-object weight (eos_coef 0.1) in the cross-entropy. Nothing fails: the ids
are all in range, the loss falls, but the fourth kind cannot be told from "nothing there",
so at evaluation its objects vanish with the empty slots (and id 0 is a logit no target
ever uses).

Reported: "Confusion about num_classes" - https://github.com/facebookresearch/detr/issues/108
(the maintainer: "You should always use num_classes = max_id + 1 where max_id is the
highest class ID that you have in your dataset"; the no-object id is then max_id + 1).
Here: scenes of one to three objects (4 kinds, ids 1..4, 2-D positions) drawn as blobs on
a per-kind 8x8 grid, an MLP with 6 slots, a hand-written matcher (cost: minus the softmax
probability of the target's class plus 5 x the L1 distance, scipy's linear_sum_assignment
per scene), cross-entropy over all slots with no-object weight 0.1 plus 5 x L1 on the
matched positions, Adam, batches of 64.
Fix: num_classes = max_id + 1 = 5 (the head gets 6 logits, no-object is id 5).

Measured (held-out detection F1 on 512 scenes, a detection being a slot whose argmax is
not the no-object id, counted when class and position (within 0.15) agree): seed 0:
0.716 with the bug against 0.812 fixed; seeds + 1000: 0.675 vs 0.785.
"""
import numpy as np
import torch
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment

import nndebug as nd
from benchmarks.real_bugs._set317 import CLASSES, SetNet, detection_f1, scenes

TITLE = "Confusion about num_classes"
LINK = "https://github.com/facebookresearch/detr/issues/108"
EXPECTED = ("TARGET_IDS_OFFSET",)
STEPS = 400
BATCH = 64
EOS_COEF = 0.1


def match(logits, positions, targets):
    """Per scene, (slot indices, target indices) of the cheapest one-to-one pairing."""
    indices = []
    prob = logits.detach().softmax(-1).numpy()
    for p, pos, (labels, where) in zip(prob, positions.detach().numpy(), targets):
        l1 = np.abs(pos[:, None, :] - where.numpy()[None, :, :]).sum(-1)
        slots, objects = linear_sum_assignment(-p[:, labels.numpy()] + 5 * l1)
        indices.append((torch.as_tensor(slots), torch.as_tensor(objects)))
    return indices


def set_loss(logits, positions, targets, num_classes, empty_weight):
    indices = match(logits, positions, targets)
    batch_idx = torch.cat([torch.full_like(s, i) for i, (s, _) in enumerate(indices)])
    slot_idx = torch.cat([s for s, _ in indices])
    target_classes = torch.full(logits.shape[:2], num_classes, dtype=torch.int64)
    target_classes[batch_idx, slot_idx] = torch.cat([t[0][j] for t, (_, j) in
                                                     zip(targets, indices)])
    loss_ce = F.cross_entropy(logits.transpose(1, 2), target_classes, empty_weight)
    matched = positions[batch_idx, slot_idx]
    wanted = torch.cat([t[1][j] for t, (_, j) in zip(targets, indices)])
    return loss_ce + 5 * F.l1_loss(matched, wanted)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, targets = scenes(4096 + 512, rng, first_label=1)      # class ids 1..4
    max_id = CLASSES
    num_classes = max_id + 1 if fixed else CLASSES   # BUG: 4, so no-object id 4 = kind 4
    model = SetNet(num_classes + 1)
    empty_weight = torch.ones(num_classes + 1)
    empty_weight[-1] = EOS_COEF
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = rng.integers(0, 4096, BATCH)
            logits, positions = model(x[torch.from_numpy(index)])
            loss = set_loss(logits, positions, [targets[i] for i in index], num_classes,
                            empty_weight)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        logits, positions = model(x[4096:])
    mon.held_out_detection_f1 = detection_f1(logits, positions, targets[4096:],
                                             no_object=num_classes)
    return mon
