"""The actor's loss weighs the log-probabilities by an advantage, ``reward - value``, whose
value is not detached: the policy-gradient term also trains the critic, pushing each value
toward whatever makes ``-log_prob * (reward - value)`` smaller (up wherever the log-probs
are negative, which is everywhere), against its own regression. The baseline drifts off
the reward, and the actor's updates lose the variance reduction the baseline was for.

Reported: "Critic not detached from policy loss" -
https://github.com/astariul/encode-attend-navigate-pytorch/issues/2 ("the critic should
not receive any backpropagation from the policy loss. Gradients should be stopped. In the
original implementation, they do ... tf.stop_gradient(self.reward-self.predictions)";
fixed by PR #3: "Because critic values were not detached when computing policy loss, the
critic network was backpropagated from both the policy loss and critic loss, leading to
unstable training"). Here an actor-critic with a shared body (one network, a policy head
and a value head, one optimizer, the two losses summed, as in the report) plays a
contextual bandit on the 8x8 digits: the state is a digit, the actions its ten classes,
the reward 1 for naming it. Fix: ``advantage = (reward - value).detach()`` in the actor's loss.

How watch finds it: on the first recorded steps the monitor reads the loss's graph when
``backward`` is called: a product of the taken actions' log-probabilities and a weight
whose graph reaches the watched model's own parameters (the value head) without passing
through the policy's logits. That is POLICY_WEIGHT_NOT_DETACHED; the fixed twin's weight
is a constant.
"""
import torch
from torch import nn
from torch.distributions import Categorical

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Critic not detached from policy loss"
LINK = "https://github.com/astariul/encode-attend-navigate-pytorch/issues/2"
EXPECTED = ("POLICY_WEIGHT_NOT_DETACHED",)
STEPS = 300


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.policy = nn.Linear(64, 10)
        self.value = nn.Linear(64, 1)

    def forward(self, states):
        hidden = self.body(states)
        return self.policy(hidden), self.value(hidden).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = ActorCritic()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for states, labels in batches(x, y, steps):
            logits, values = model(states)
            dist = Categorical(logits=logits)
            actions = dist.sample()
            rewards = (actions == labels).float()
            advantage = rewards - values
            if fixed:
                advantage = advantage.detach()
            actor_loss = -(dist.log_prob(actions) * advantage).mean()   # BUG: not detached
            critic_loss = (rewards - values).pow(2).mean()
            loss = actor_loss + 0.5 * critic_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.final_reward = rewards.mean().item()
    return mon
