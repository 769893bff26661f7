"""The DDPG soft update writes its blend into the ONLINE actor and critic instead of the
target networks: ``online <- tau * online + (1 - tau) * target`` each step, through
``online.load_state_dict(...)``. The targets never move from their initial copy, and every
step drags the freshly trained networks 99% of the way back to their initial weights: what
an optimizer step learns is undone at once, and the agent stays near its random policy.

Silent: the loop runs, the losses are finite and small (the critic barely moves, so its TD
error stays at its starting size), and the soft-update function looks like the textbook
formula with its two sides swapped.

Reported: "possible typing error" -
https://github.com/reinshift/MADDPG_Multi_UAV_Roundup/issues/10 (the MADDPG agent's
``update_network_parameters`` blended ``tau * online + (1 - tau) * target`` and loaded the
result into ``self.actor`` / ``self.critic``: "the actor and critic networks were updated
instead of the target networks"; the maintainer agreed it came from copied code and fixed
it to load the blend into ``target_actor`` / ``target_critic``).

Here: hand-written DDPG on the batch's point-reaching task (``_continuous_control``: reach
the origin of the plane with a velocity in [-2, 2]^2, reward minus the distance, 128 fresh
exploratory transitions per step, tau 0.01). The bug loads the blend into the online
networks; fix: into the target networks.

**Measured** (1000 steps, mean held-out return of the deterministic policy over 256
episodes; doing nothing scores about -57, the best policy about -4): seed 0: -77.1 for the
bug against -4.14 for the fixed twin; seeds shifted by 1000: -79.0 against -3.88.
"""
from benchmarks.real_bugs import _continuous_control as cc

TITLE = "possible typing error"
LINK = "https://github.com/reinshift/MADDPG_Multi_UAV_Roundup/issues/10"
EXPECTED = ("SOFT_UPDATE_OVERWRITES_ONLINE_WEIGHTS",)
STEPS = 1000


def blend_into(destination, online, target, tau=cc.TAU):
    state = {k: tau * v.clone() + (1 - tau) * target.state_dict()[k].clone()
             for k, v in online.state_dict().items()}
    destination.load_state_dict(state)


def run(fixed=False, steps=STEPS, **watch):
    def update(actor, critic, target_actor, target_critic):
        for online, target in ((actor, target_actor), (critic, target_critic)):
            # BUG: the blend is loaded into the online network; fix: into the target
            blend_into(target if fixed else online, online, target)

    return cc.ddpg(steps, watch, update_targets=update)
