"""A top-k router that renormalises the selected experts' weights to sum to one
(``norm_topk_prob``), run with one expert per token: the weight is divided by its own sum,
so it is exactly 1.0 for every token whatever the gate says. Which expert is chosen is a
discrete argmax, so with the weight constant the task loss has no path back to the router
at all; the router is trained by the load-balancing loss alone, whose optimum is an even
spread that says nothing about the inputs. Training runs, the loss falls (each expert fits
whatever mix of inputs it is sent), the balance loss sits at its floor and the expert loads
look perfectly healthy - but the routing never specialises.

Reported: "[Bug] num_experts_per_tok=1 时 MoE 路由器收不到梯度（topk 权重归一化后退化为常数）"
(with num_experts_per_tok=1 the MoE router receives no gradient: the top-k weight
degenerates to a constant after normalisation) -
https://github.com/jingyaogong/minimind/issues/858 (the reporter's MoE, three times the
dense model's parameters, scored a worse perplexity than the dense model, with expert loads
[0.241, 0.263, 0.247, 0.249] and the aux loss at its theoretical minimum; root cause
``topk_weight / topk_weight.sum(-1)`` over a single column; fixed in
https://github.com/jingyaogong/minimind/pull/859 by renormalising only when more than one
expert is selected). Here a top-1 mixture of eight linear experts (a bias-free linear router,
the Switch balance loss at 0.01) fits a piecewise-linear regression whose eight input
clusters each have their own linear map (benchmarks/real_bugs/_moe168.py), Adam. Fix: keep
the softmax probability as the chosen expert's weight when k = 1.

Measured (2,000 steps, batch 64, 1,024 held-out rows; held-out MSE over the targets'
variance): seed 0, 0.263 for the bug against 0.085 for the fixed twin; seeds shifted by
1000, 0.360 against 0.086. (The bug's experts each serve an arbitrary linear slice of the
input space, so each fits several clusters' maps at once; its busiest expert takes 0.17 and
0.31 of the held-out rows, against 0.23 and 0.22 - the loads look no worse.)
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._moe168 import DIM, EXPERTS, LinearExperts, held_out, task, train

TITLE = ("[Bug] num_experts_per_tok=1 时 MoE 路由器收不到梯度（topk 权重归一化后退化为常数）")
LINK = "https://github.com/jingyaogong/minimind/issues/858"
EXPECTED = ("ROUTING_WEIGHT_CONSTANT",)
STEPS = 2000
TOP_K = 1
AUX_WEIGHT = 0.01


class TopKMoE(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.router = nn.Linear(DIM, EXPERTS, bias=False)
        self.experts = LinearExperts()

    def forward(self, x):
        probs = self.router(x).softmax(1)
        weight, index = probs.topk(TOP_K, dim=1)
        if not self.fixed or TOP_K > 1:
            # BUG (with TOP_K = 1): one column divided by its own sum is 1.0 everywhere
            weight = weight / (weight.sum(1, keepdim=True) + 1e-20)
        combine = torch.zeros_like(probs).scatter(1, index, weight)
        out = (combine[..., None] * self.experts(x)).sum(1)
        routed = F.one_hot(index[:, 0], EXPERTS).float().mean(0)
        balance = EXPERTS * (routed * probs.mean(0)).sum()
        return out, balance


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = task()
    model = TopKMoE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = train(model, optimizer, x, y, steps, aux_weight=AUX_WEIGHT, watch=watch)
    mon.held_out_relative_mse, mon.busiest_expert = held_out(model, x_test, y_test)
    return mon
