"""A behaviour-cloning policy fed the robot's low-dimensional observations raw: joint
positions in radians next to joint velocities, gripper width in metres and a force
reading in newtons, their scales four orders of magnitude apart. The reference
implementation standardises each feature with the dataset's statistics before the
network; this port never did. The network still trains - the loss falls and nothing is
non-finite - but the first layer's view is dominated by the large-scale features, the
small-scale ones (the gripper width, the fine joint angles) barely move its activations,
and the actions that depend on them are learned slowly and badly.

Reported: "Integrate bigym training pipeline" - https://github.com/swirl-uk/robobase/pull/1
(while verifying the ACT pipeline on BiGym, the reviewers asked whether low-dim observation
normalisation was needed; the author "found that the official implementation actually does
the normalization, but we didn't do that in our previous code" and added a wrapper that
normalises the low-dim observations). Here 8 proprioceptive features with stds from 0.002
to 40 and offsets to match, an expert whose 4 actions are a smooth nonlinear function of
the standardised features, an MLP policy (benchmarks/real_bugs/_bc.py), Adam 1e-3, batches
of 64. Fix: each feature standardised with the training set's mean and std.

Measured (mean squared action error on 1000 held-out states; the actions' variance is
about 0.33): seed 0: 0.175 with the bug against 0.0023 fixed; seeds shifted by 1000: 0.31
against 0.0025.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bc import policy

TITLE = "Integrate bigym training pipeline"
LINK = "https://github.com/swirl-uk/robobase/pull/1"
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_CHANNELS_ON_DIFFERENT_SCALES")
STEPS = 800
#          joint pos (rad)   joint vel   gripper (m)  force (N)  base pos (m)
MEANS = np.array([0.3, -1.2, 0.8, 0.0, 2.0, 0.04, 15.0, 0.5])
STDS = np.array([0.02, 0.05, 0.1, 1.5, 3.0, 0.002, 40.0, 0.01])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    mix = rng.normal(0.0, 0.6, (8, 4))
    unit = rng.normal(0.0, 1.0, (5000, 8))
    raw = MEANS + STDS * unit
    actions = np.tanh(unit @ mix) * 0.8 + rng.normal(0.0, 0.03, (5000, 4))
    raw = torch.tensor(raw, dtype=torch.float32)
    actions = torch.tensor(actions, dtype=torch.float32)
    mean, std = raw[:4000].mean(0), raw[:4000].std(0)
    obs = (raw - mean) / std if fixed else raw        # BUG: the low-dim obs fed raw
    net = policy(8, 4)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    with nd.watch(net, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.randint(0, 4000, (64,))
            loss = F.mse_loss(net(obs[idx]), actions[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_action_mse = F.mse_loss(net(obs[4000:]), actions[4000:]).item()
        mon.action_variance = actions[4000:].var(0).mean().item()
    return mon
