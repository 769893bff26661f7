"""GradNorm (Chen et al. 2018) with its task weights trained as raw numbers: each step the
weights take a gradient step on the GradNorm loss (|G_i - mean(G) * r_i^alpha| summed over
tasks, G_i the norm of task i's weighted gradient at the last shared layer) and are then
rescaled to sum to the number of tasks. Only the sum is constrained. A task whose gradient
is far larger than its target has its weight pushed down every step, through zero and below:
a negative weight turns that task's loss into one the shared encoder climbs, and the
rescaling by a sum that has drifted near zero blows both weights up (one huge positive, one
huge negative). The loss stays finite - the weights are not the model's parameters and
nothing watches them - while the network is driven away from both tasks.

Reported: "How to avoid w less than 0?" - https://github.com/hosseinshn/GradNorm/issues/7
(a GradNorm implementation updates ``w`` by its own optimizer and renormalises it to sum to
the task count; "only the sum of w is constrained ... it is not avoided that w is less than
0"; several users hit the same, and the answer points at an implementation that keeps the
weights positive through an exponential transform). Here a shared digits encoder with a
digit head (cross-entropy) and an ink head (squared error on each image's total ink / 4),
alpha = 1.5, Adam at 0.003 for the network and 0.025 for the weights, 400 steps. Fix: train
log-weights and use exp(log w), renormalised to sum to 2 - the weights stay positive.

Measured (297 held-out digits): seed 0: held-out digit accuracy 0.111 for the bug against
0.835 for the fixed twin (held-out ink squared error 1.6e9 against 0.59); seeds shifted by
1000: 0.111 against 0.832 (4.2e9 against 0.48). The ink weight crosses zero within the first
100 steps and the pair ends near (+1e5, -1e5).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, encoder, rows

TITLE = "How to avoid w less than 0?"
LINK = "https://github.com/hosseinshn/GradNorm/issues/7"
EXPECTED = ("LOSS_UNBOUNDED_BELOW", "TASK_WEIGHT_NEGATIVE")
STEPS = 400
ALPHA = 1.5           # the GradNorm paper's value for its NYU experiments
TASKS = 2


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.digit = nn.Linear(32, 10)
        self.ink = nn.Linear(32, 1)

    def forward(self, x):
        h = self.encoder(x)
        return self.digit(h), self.ink(h).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    ink = x.sum(1) / 4
    model = TwoHeads()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    # fixed: log-weights (exp keeps every weight positive); bug: the weights themselves
    raw = (torch.zeros(TASKS) if fixed else torch.ones(TASKS)).requires_grad_(True)
    weight_optimizer = torch.optim.Adam([raw], lr=0.025)
    shared = model.encoder[2].weight                 # the last shared layer GradNorm reads
    first_losses = None
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            digit_logits, ink_pred = model(x[index])
            losses = torch.stack([F.cross_entropy(digit_logits, y[index]),
                                  F.mse_loss(ink_pred, ink[index])])
            if first_losses is None:
                first_losses = losses.detach()
            if fixed:
                weights = torch.exp(raw)
                weights = weights / weights.sum().detach() * TASKS
            else:
                weights = raw
            optimizer.zero_grad()
            weight_optimizer.zero_grad()
            loss = (weights * losses).sum()
            loss.backward(retain_graph=True)
            norms = torch.stack([torch.autograd.grad(weights[i] * losses[i], shared,
                                                     retain_graph=True, create_graph=True)[0]
                                 .norm() for i in range(TASKS)])
            ratio = losses.detach() / first_losses
            target = (norms.mean() * (ratio / ratio.mean()) ** ALPHA).detach()
            raw.grad = torch.autograd.grad((norms - target).abs().sum(), raw)[0]
            optimizer.step()
            weight_optimizer.step()
            if not fixed:    # BUG: only the sum is kept at TASKS; nothing keeps w > 0
                with torch.no_grad():
                    raw.copy_(raw / raw.sum() * TASKS)
            mon.step(loss)
    with torch.no_grad():
        digit_logits, ink_pred = model(x_held)
        mon.held_out_accuracy = accuracy(digit_logits, y_held)
        mon.held_out_ink_error = round(float(F.mse_loss(ink_pred, x_held.sum(1) / 4)), 3)
    return mon
