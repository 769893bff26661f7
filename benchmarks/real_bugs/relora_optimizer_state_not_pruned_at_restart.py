"""A hand-written ReLoRA loop that merges its adapters and restarts them every few steps,
and is meant to prune the optimizer's state at each restart (ReLoRA zeroes all but the
largest 10 % of Adam's moments), but whose pruning step never touches a moment: it
looks the states up under keys that are not there and zeroes nothing. The restarted
adapters - A freshly random, B zero - then inherit the previous cycle's Adam moments,
which point along directions of the old A; Adam's first steps of every cycle push B
along stale momentum at full learning-rate size. Nothing fails; every cycle starts with
a jolt and the adapted model ends worse.

Reported: "fix optimizer reset for relora sft" -
https://github.com/axolotl-ai-cloud/axolotl/pull/1414 ("the relora optimizer reset
wasn't pruning anything", because iterating over the optimizer's states did not find
the keys to prune; a later comment still logs "Percent of optimizer states zeroed: 0.00"
and points to the ReLoRA reference implementation; the fix is to reach each parameter's
state so that the magnitude pruning really zeroes the moments at
each restart, as the ReLoRA reference implementation does). Here an MLP pretrained on
the plain digits is adapted to the mirrored digits with rank-4 adapters (alpha 8) on
both of its frozen layers, Adam 1e-2, merging and restarting every 25 steps (the merge is
right in both runs).

**Measured** (200 steps, eight cycles, 497 held-out digits): held-out accuracy on the
mirrored digits 0.76 for the bug (no moment ever zeroed) against 0.92 for the fixed twin
at seed 0, and 0.79 against 0.91 with every seed shifted by 1000.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._lora173 import accuracy, mirrored, pretrained_base, split

TITLE = "fix optimizer reset for relora sft"
LINK = "https://github.com/axolotl-ai-cloud/axolotl/pull/1414"
EXPECTED = ("OPTIMIZER_STATE_KEPT_AT_RESTART",)
STEPS = 200
RANK, ALPHA, RESTART_EVERY, PRUNE_RATIO = 4, 8, 25, 0.9


class LoRALinear(nn.Module):
    """A frozen nn.Linear plus (alpha / rank) * B @ A; ``restart`` merges, then re-inits."""

    def __init__(self, base):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(RANK, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, RANK))
        self.scale = ALPHA / RANK
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    @torch.no_grad()
    def restart(self):
        self.base.weight += self.scale * self.lora_B @ self.lora_A
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B)

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scale


@torch.no_grad()
def prune_optimizer_state(optimizer, fixed):
    """Zero all but the largest (1 - PRUNE_RATIO) of each parameter's Adam moments: the
    entries kept are those with the largest first moment, in both moments alike."""
    zeroed = 0
    for group in optimizer.param_groups:
        for index, p in enumerate(group["params"]):
            # BUG: looked up by position (as state_dict() numbers them); optimizer.state
            # is keyed by the parameter tensor itself, so nothing is found
            state = optimizer.state.get(p if fixed else index, {})
            if "exp_avg" in state:
                size = state["exp_avg"].abs()
                keep = size >= size.flatten().quantile(PRUNE_RATIO)
                zeroed += int((~keep).sum())
                state["exp_avg"].mul_(keep)
                state["exp_avg_sq"].mul_(keep)
    return zeroed


def run(fixed=False, steps=STEPS, **watch):
    train_x, train_y, test_x, test_y = split()
    model = pretrained_base(train_x, train_y)
    model.requires_grad_(False)
    torch.manual_seed(0)
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = LoRALinear(layer)
    layers = [m for m in model if isinstance(m, LoRALinear)]
    adapters = [p for n, p in model.named_parameters() if "lora" in n]
    optimizer = torch.optim.Adam(adapters, lr=1e-2)
    zeroed = []
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(mirrored(train_x), train_y, steps), 1):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % RESTART_EVERY == 0 and step < steps:
                for layer in layers:
                    layer.restart()
                zeroed.append(prune_optimizer_state(optimizer, fixed))
    mon.held_out_accuracy = accuracy(model, mirrored(test_x), test_y)
    mon.optimizer_states_zeroed = sum(zeroed)
    return mon
