"""A set-prediction model (DETR-style: a fixed number of output slots, each matched to
one target by the Hungarian algorithm, the loss taken over the matched pairs) whose
matcher reads the assignment with rows and columns swapped. The cost matrix is built with
the PREDICTIONS on its rows and the targets on its columns, while the code that unpacks
``linear_sum_assignment`` treats the rows as the targets. The solver's answer
``(rows, cols)`` pairs prediction r with target cols[r]; read the other way it pairs
target r with prediction cols[r] - the inverse permutation, which is the right pairing
only when the permutation is its own inverse. With square matrices nothing has a wrong
shape, the loss is still a sum of distances between slots and targets and it falls, but
most of the pairs it pulls together are not the ones the matching chose, so each slot is
regressed on targets that change from example to example.

Reported: "Potential bug in Hungarian matching interface" -
https://github.com/Visual-Behavior/detr-tensorflow/issues/14 (the reporter found the
matcher building the cost with predictions on the rows and ground truth on the columns
while the assignment helper expects ground truth on the rows and predictions on the
columns; the fix is to build the cost with the convention the assignment is read with,
i.e. transpose the cost or swap the unpacked index arrays). Here: sets of four 2-D points
generated from a 4-D code by a fixed random map (benchmarks/real_bugs/_ot.py's set data),
each example's targets shown in a random order; an MLP from the code to four slots,
squared-distance cost, scipy's ``linear_sum_assignment`` on the detached cost, Adam. Fix:
unpack the solver's output as (prediction, target) indices, as the cost was built.

Measured (400 steps, batch 64, 512 held-out sets; the held-out matched error: the mean
squared distance between each target and its slot under an optimal matching): seed 0:
1.04 for the bug against 0.090 for the fixed twin; seeds shifted by 1000: 0.79 against
0.069.
"""
import numpy as np
import torch
from scipy.optimize import linear_sum_assignment

import nndebug as nd
from benchmarks.real_bugs._ot import matched_set_error, point_sets

TITLE = "Potential bug in Hungarian matching interface"
LINK = "https://github.com/Visual-Behavior/detr-tensorflow/issues/14"
EXPECTED = ("MATCHING_INDICES_SWAPPED",)
STEPS = 400
SLOTS, BATCH = 4, 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    codes, targets = point_sets(4096 + 512, rng)
    train_codes, train_targets = codes[:4096], targets[:4096]
    model = torch.nn.Sequential(torch.nn.Linear(4, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, SLOTS * 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.from_numpy(rng.integers(0, len(train_codes), BATCH))
            slots = model(train_codes[index]).view(BATCH, SLOTS, 2)
            wanted = train_targets[index]
            cost = ((slots[:, :, None, :] - wanted[:, None, :, :]) ** 2).sum(-1)  # (pred, gt)
            pred_rows, target_rows = [], []
            for matrix in cost.detach().numpy():
                rows, cols = linear_sum_assignment(matrix)
                if fixed:
                    pred_index, target_index = rows, cols
                else:
                    target_index, pred_index = rows, cols   # BUG: rows read as targets
                pred_rows.append(torch.from_numpy(pred_index))
                target_rows.append(torch.from_numpy(target_index))
            batch_index = torch.arange(BATCH)[:, None]
            matched = slots[batch_index, torch.stack(pred_rows)]
            loss = ((matched - wanted[batch_index, torch.stack(target_rows)]) ** 2).sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        held_out = model(codes[4096:]).view(-1, SLOTS, 2)
    mon.held_out_matched_error = matched_set_error(held_out, targets[4096:])
    return mon
