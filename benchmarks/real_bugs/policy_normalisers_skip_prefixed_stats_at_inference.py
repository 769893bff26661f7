"""A behaviour-cloning policy trained on normalised joint states and normalised action
targets, whose inference pipeline silently skips both the state normalisation and the
action un-normalisation. The policy was trained on several datasets, so its statistics
were saved under dataset-prefixed keys ("so100.action", ...); the normaliser looks the
plain key up, finds nothing, and returns the tensor unchanged instead of raising. The
policy then reads joint angles in degrees where it learned unit-variance inputs, and its
unit-variance outputs are sent to the robot as degrees. Training is untouched - its loss,
gradients and updates are those of a healthy run.

Reported: "Normalization/unnormalization is silently skipped after Pipeline migration
for multi-dataset models" - https://github.com/huggingface/lerobot/issues/4415 (after the
processor-pipeline migration the stats of multi-dataset models such as smolvla_base were
stored with dataset-prefixed keys, and ``_apply_transform`` returned the tensor as it was
whenever ``key not in self._tensor_stats``, for the action and the state alike; the fix is
to resolve the stats under their real keys, and to fail loudly rather than pass through).
Here 6 joint readings in degrees (means 20 to 90, stds 5 to 30), an expert whose next
joint targets are a smooth nonlinear function of the state, an MLP trained by MSE on
normalised states and actions (Adam 1e-3, batches of 64). Bug: at inference the stats
are looked up by the plain key, missed, and skipped. Fix: the stats found (normalised
in, un-normalised out).

Measured (mean squared error, in degrees squared, of the commanded joint targets on 1000
held-out states; the targets' own variance is about 380): seed 0: 161 with the bug against
2.7 fixed; seeds shifted by 1000: 241 against 4.3.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bc import policy

TITLE = ("Normalization/unnormalization is silently skipped after Pipeline migration for "
         "multi-dataset models")
LINK = "https://github.com/huggingface/lerobot/issues/4415"
EXPECTED = ("INPUT_NORMALISATION_SKIPPED_AT_INFERENCE",)
STEPS = 600
MEANS = np.array([20.0, -45.0, 90.0, 0.0, 60.0, 35.0])
STDS = np.array([10.0, 15.0, 30.0, 5.0, 20.0, 25.0])


def normalise(tensor, key, stats):
    """The pipeline's transform: a missing key passes the tensor through unchanged."""
    if key not in stats:
        return tensor
    mean, std = stats[key]
    return (tensor - mean) / std


def unnormalise(tensor, key, stats):
    if key not in stats:
        return tensor
    mean, std = stats[key]
    return tensor * std + mean


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    mix = rng.normal(0.0, 0.6, (6, 6))
    unit = rng.normal(0.0, 1.0, (5000, 6))
    states = MEANS + STDS * unit
    targets = states + 0.6 * STDS * np.tanh(unit @ mix) + rng.normal(0, 0.5, (5000, 6))
    states = torch.tensor(states, dtype=torch.float32)
    targets = torch.tensor(targets, dtype=torch.float32)
    train_s, held_s, train_a, held_a = states[:4000], states[4000:], targets[:4000], \
        targets[4000:]
    # the checkpoint's stats, saved under the dataset's prefix
    saved = {"so100.observation.state": (train_s.mean(0), train_s.std(0)),
             "so100.action": (train_a.mean(0), train_a.std(0))}
    prefix = "so100." if fixed else ""           # BUG: the plain keys are looked up
    state_key, action_key = prefix + "observation.state", prefix + "action"
    s_mean, s_std = saved["so100.observation.state"]
    a_mean, a_std = saved["so100.action"]
    norm_s, norm_a = (train_s - s_mean) / s_std, (train_a - a_mean) / a_std   # training
    net = policy(6, 6, hidden=64)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    with nd.watch(net, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.randint(0, len(norm_s), (64,))
            loss = F.mse_loss(net(norm_s[idx]), norm_a[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():            # the inference pipeline
        commanded = unnormalise(net(normalise(held_s, state_key, saved)), action_key, saved)
        mon.held_out_action_mse = F.mse_loss(commanded, held_a).item()
        mon.target_variance = held_a.var(0).mean().item()
    return mon
