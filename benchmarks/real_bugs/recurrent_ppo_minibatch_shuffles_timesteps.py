"""PPO with a recurrent (GRU) policy whose SGD phase shuffles the collected batch sample by
sample, as it does for a feed-forward policy, and only then cuts it into the sequences the
recurrent policy is unrolled over: each "sequence" the update replays is a random draw of time
steps from all the streams, so the state the policy carries into a step is built from
unrelated steps of other episodes. The update still lowers its loss, but the log-probabilities
it pushes are those of the policy in states that never occur when the agent plays; what the
agent must remember (here the cue it saw before the corridor) is never learned.

Reported: "[rllib] Don't shuffle samples in PPO when using lstm" -
https://github.com/ray-project/ray/pull/2996 (the maintainer's fix: "Shuffling destroys the
sequence ordering", with the partially observed cart-pole LSTM example's curves before and
after, "PPO is much better and reliably reaches 200 here"). Here the T-maze of
benchmarks/real_bugs/_tmaze354.py (a cue on the first step, a corridor of 1-6 identical
steps, a turn at the junction paid 1 if it matches the cue), 64 streams of 16 steps played by
the current policy (its state reset at each episode's first step), every step credited with
its episode's reward less the batch mean, a GRU(3 -> 32) policy, the clipped PPO objective
(0.2) over 2 epochs per batch, entropy 0.01, Adam 3e-3. Fix: the PR's, the batch replayed in
its collected order (no shuffle of single samples).

No finding code names time steps shuffled before a recurrent unroll; the nearest,
STATE_CARRIED_ACROSS_BATCHES, names a recurrent state carried into samples it does not
belong to.

Measured (held-out: the greedy policy's share of correct turns over 500 unseen mazes played
from a fresh state, after 150 optimizer steps): 0.51 with the bug, 1.00 fixed; seeds + 1000:
0.53 vs 1.00.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._tmaze354 import RecurrentQ, held_out_success, play_streams

TITLE = "[rllib] Don't shuffle samples in PPO when using lstm"
LINK = "https://github.com/ray-project/ray/pull/2996"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES",)
STEPS = 150
LANES, LENGTH, EPOCHS, CLIP, ENTROPY = 64, 16, 2, 0.2, 0.01


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    policy = RecurrentQ()                       # its two outputs read as action logits
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    done = 0
    with nd.watch(policy, optimizer, **watch) as mon:
        while done < steps:
            obs, dones, first, cues, complete = play_streams(rng, LANES, LENGTH)
            with torch.no_grad():               # play: the state reset at episode starts
                logits, _ = policy(obs, first)
                dist = torch.distributions.Categorical(logits=logits)
                actions = dist.sample()
                old_logp = dist.log_prob(actions)
            paid = (dones & (actions == cues)).float()
            # every step of an episode is credited with the reward at its junction
            steps_ = torch.arange(LENGTH)[:, None].expand(LENGTH, LANES)
            junction = torch.where(dones, steps_, LENGTH - 1).flip(0).cummin(0).values.flip(0)
            returns = paid.gather(0, junction)
            advantages = (returns - returns[complete].mean()) * complete.float()
            batch = [obs, first, actions, old_logp, advantages, complete]
            for _ in range(EPOCHS):
                if fixed:
                    rows = [b for b in batch]
                else:   # BUG: shuffle single samples, then cut back into (T, B) sequences
                    order = torch.from_numpy(rng.permutation(LENGTH * LANES))
                    rows = [b.reshape(LENGTH * LANES, *b.shape[2:])[order]
                            .reshape(b.shape) for b in batch]
                o, f, a, old, adv, valid = rows
                logits, _ = policy(o, f)
                dist = torch.distributions.Categorical(logits=logits)
                ratio = torch.exp(dist.log_prob(a) - old)
                surrogate = torch.min(ratio * adv, ratio.clamp(1 - CLIP, 1 + CLIP) * adv)
                loss = -(surrogate[valid].mean() + ENTROPY * dist.entropy()[valid].mean())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    mon.held_out_success = held_out_success(policy, 0)
    return mon
