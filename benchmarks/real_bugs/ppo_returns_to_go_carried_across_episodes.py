"""A hand-written PPO in the style of a popular first PyTorch tutorial computes each
step's Monte-Carlo return by walking the rollout backwards, ``discounted = reward + gamma
* discounted``, and never sets the running sum back to zero where an episode ended. The
rollout holds many short episodes one after another, so every episode's returns include
the (discounted) rewards of the episodes that came after it: the step that dropped the
pole is credited with the next episode's whole return, and the critic, fitted to these
returns, is taught that the last steps of an episode are as good as any.

Reported: "update() retains discounted_reward from previous episodes" -
https://github.com/nikhilbarhate99/PPO-PyTorch/issues/8 (the reporter: "there's no break
between episodes so the reward from one episode is carried across to the next"; the
suggested fix, taken by the author: set the running sum to 0 at a terminal step before
adding its reward). Here a PPO agent in the tutorial's form (discounted returns
standardised over the rollout, advantages ``returns - state_values.detach()`` per
minibatch; separate 64-unit policy and value networks in one module, one Adam at 1e-3, 8
cart-poles x 64 steps per rollout, each copy's returns summed along its own column, 4
epochs of 4 shuffled minibatches, clip 0.2, value loss 0.5, entropy 0.01;
benchmarks/real_bugs/_ppo294.py) on a cart-pole written out in NumPy. Fix: the report's,
the running sum reset at every terminal step.

Measured (held-out: the greedy policy's mean episode length over 50 unseen starts, cut at
200; 300 optimizer steps, 19 rollouts): the bug's agent lasts 9.3 steps, the fixed twin
200.0. Seeds + 1000: 9.5 vs 200.0.
"""
import torch
from torch.distributions import Categorical

from benchmarks.real_bugs._policy_gradient import held_out_length
from benchmarks.real_bugs._ppo294 import CLIP, ENTROPY_COEF, GAMMA, VALUE_COEF, train

TITLE = "update() retains discounted_reward from previous episodes"
LINK = "https://github.com/nikhilbarhate99/PPO-PyTorch/issues/8"
EXPECTED = ("ADVANTAGE_CROSSES_EPISODE_BOUNDARY",)
STEPS = 300


def returns_to_go(fixed):
    def returns_of(rewards, values, dones, last_values):
        """The tutorial's Monte-Carlo returns, standardised over the rollout (returned
        twice: the advantages are formed in the update, from the critic's values)."""
        returns = torch.zeros_like(rewards)
        discounted = torch.zeros_like(last_values)
        for t in reversed(range(len(rewards))):
            if fixed:
                discounted = discounted * (1.0 - dones[t])
            # BUG unfixed: nothing resets the sum where an episode ended
            discounted = rewards[t] + GAMMA * discounted
            returns[t] = discounted
        returns = (returns - returns.mean()) / (returns.std() + 1e-7)
        return returns, returns
    return returns_of


def loss_of(model, states, actions, old_log_probs, unused, returns):
    logits, state_values = model(states)
    state_values = state_values.squeeze(-1)
    dist = Categorical(logits=logits)
    ratio = torch.exp(dist.log_prob(actions) - old_log_probs)
    advantages = returns - state_values.detach()
    surrogate = torch.min(ratio * advantages, ratio.clamp(1 - CLIP, 1 + CLIP) * advantages)
    value_loss = (state_values - returns).pow(2).mean()
    return -surrogate.mean() + VALUE_COEF * value_loss - ENTROPY_COEF * dist.entropy().mean()


def run(fixed=False, steps=STEPS, **watch):
    mon, model = train(steps, advantages_of=returns_to_go(fixed),
                       standardise_of=lambda advantages: advantages, loss_of=loss_of, **watch)
    mon.held_out_length = held_out_length(model.actor)
    return mon
