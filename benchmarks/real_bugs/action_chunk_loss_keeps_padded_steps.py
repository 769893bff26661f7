"""An action-chunking behaviour-cloning policy (it predicts the next H waypoints at once)
trained with the episode-end padding counted as demonstration. Where a window runs past
the end of its episode the dataset fills the chunk with the episode's last waypoint
repeated and flags those steps ``action_is_pad``; the loss takes the mean over every step
and never reads the flag. Demonstrations stop at arbitrary times (nothing in the state
says the end is near), so the policy is taught, for the same kind of state, both to keep
moving and to freeze: its chunks come out damped toward standing still. Loss and
gradients are those of an ordinary regression that simply plateaus a little higher.

Reported: "Bug: LingbotVlaPolicy includes padded action steps in training loss" -
https://github.com/Robbyant/lingbot-vla/pull/62 (``forward()`` accepted ``action_is_pad``
but reduced the per-step action loss without it, so padded tail actions - LeRobot repeats
the final frame - were treated as real targets, biasing training toward stationary
end-of-episode actions; the fix folds ``action_is_pad`` into the validity mask and averages
over valid entries only). Here a spiral-reach expert in 2-D (benchmarks/real_bugs/_bc.py),
demonstrations of 3 to 12 steps, chunks of H = 8 absolute waypoints, an MLP policy on
(position, goal), Adam 1e-3, batches of 128. Fix: the loss averaged over non-padded steps.

Measured (mean squared error of the predicted chunk against the expert's real next 8
waypoints from 1000 held-out states): seed 0: 0.0066 with the bug against 0.00026 fixed;
seeds shifted by 1000: 0.0068 against 0.00024 (25 to 28 times the error).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._bc import chunked_demonstrations, policy, true_chunks

TITLE = "Bug: LingbotVlaPolicy includes padded action steps in training loss"
LINK = "https://github.com/Robbyant/lingbot-vla/pull/62"
EXPECTED = ("PADDING_NOT_MASKED", "PADDED_ACTIONS_IN_LOSS")
STEPS = 600
HORIZON = 8


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    states, chunks, is_pad = chunked_demonstrations(600, HORIZON, rng)
    net = policy(4, 2 * HORIZON)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    with nd.watch(net, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.randint(0, len(states), (128,))
            predicted = net(states[idx]).view(-1, HORIZON, 2)
            error = ((predicted - chunks[idx]) ** 2).sum(-1)       # (B, H)
            if fixed:
                valid = (~is_pad[idx]).float()
                loss = (error * valid).sum() / valid.sum().clamp_min(1)
            else:
                loss = error.mean()          # BUG: padded steps counted as demonstration
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held = torch.tensor(np.concatenate([rng.uniform(-1, 1, (1000, 2)),
                                        rng.uniform(-1, 1, (1000, 2))], axis=1),
                        dtype=torch.float32)
    with torch.no_grad():
        predicted = net(held).view(-1, HORIZON, 2)
        mon.held_out_chunk_mse = ((predicted - true_chunks(held, HORIZON)) ** 2
                                  ).sum(-1).mean().item()
    return mon
