"""A Mixtral-style load-balancing loss takes "the router probability per expert" as the mean
over the last axis of the softmax of the top-k logits. Those k weights sum to one for every
token, so their mean is the constant 1/k; multiplied by the fraction of tokens each expert
got (fractions that sum to k) and averaged, the whole auxiliary loss is a constant. It is
logged, it is added to the loss, it even has a grad_fn - and its gradient is exactly zero,
so nothing balances the router. The experts the router happens to favour early take most of
the tokens; with a capacity per expert the overflow is dropped, and the starved experts
barely train.

Reported: "load_balancing_loss in mixtral model" -
https://github.com/huggingface/transformers/issues/28093 ("The balancing loss function
always return a constant"; the loss averaged ``routing_weights`` - the top-k softmax - over
its last axis; fixed in https://github.com/huggingface/transformers/pull/28256, "Fix load
balancing loss func for mixtral", which takes the softmax over ALL experts' logits and
averages it over the tokens, the Switch Transformer's P_i). Here two top-2 MoE blocks (8 ReLU
MLP experts each, a bias-free router, balance loss weight 0.02) on the digits, each expert
taking at most capacity = k x tokens / experts of a batch (the highest-probability tokens;
a dropped token gets no expert output), Adam. Fix: P_i = the mean over the batch of
softmax(all logits)[:, i], balance = E x sum_i f_i P_i.

Measured (600 steps, 297 held-out digits read in batches of 64 with the same capacity):
seed 0, held-out accuracy 0.909 for the bug against 0.936 for the fixed twin (the first
block's busiest expert takes 0.37 of the tokens' choices against 0.20, 42% of the
assignments dropped against 15%); seeds shifted by 1000, 0.906 against 0.960 (0.26 against
0.22, 37% against 17% dropped). Two of the bug's first-block experts get no token at all.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import classification, index_batches

TITLE = "load_balancing_loss in mixtral model"
LINK = "https://github.com/huggingface/transformers/issues/28093"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT", "BALANCE_LOSS_CONSTANT")
STEPS = 600
HELD_OUT = 297
EXPERTS = 8
TOP_K = 2
CAPACITY_FACTOR = 1.0
BALANCE_WEIGHT = 0.02


class Top2Block(nn.Module):
    def __init__(self, fixed, width=64):
        super().__init__()
        self.fixed = fixed
        self.router = nn.Linear(width, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))
            for _ in range(EXPERTS))
        self.balance = None
        self.busiest = self.dropped = 0.0

    def forward(self, h):
        logits = self.router(h)
        probs = logits.softmax(1)
        top_p, top_i = probs.topk(TOP_K, dim=1)
        chosen = torch.zeros_like(probs).scatter(1, top_i, 1.0)                 # (N, E)
        capacity = min(len(h), int(CAPACITY_FACTOR * TOP_K * len(h) / EXPERTS))
        first = (probs * chosen).topk(capacity, dim=0).indices                 # per expert
        kept = chosen * torch.zeros_like(probs).scatter(0, first, 1.0)
        weights = torch.zeros_like(probs).scatter(1, top_i, top_p / top_p.sum(1, keepdim=True))
        weights = weights * kept
        out = torch.zeros_like(h)
        for e, expert in enumerate(self.experts):
            rows = kept[:, e] > 0
            if rows.any():
                out[rows] = out[rows] + expert(h[rows]) * weights[rows, e:e + 1]
        tokens_per_expert = chosen.mean(0)                                     # sums to k
        if self.fixed:
            router_prob = probs.mean(0)                                        # P_i
            self.balance = EXPERTS * (tokens_per_expert / TOP_K * router_prob).sum()
        else:
            # BUG: the mean over the k top-k softmax weights is 1/k for every token
            router_prob = logits.topk(TOP_K, dim=1).values.softmax(1).mean(1)
            self.balance = (tokens_per_expert[None] * router_prob[:, None]).mean() * EXPERTS ** 2
        self.busiest = float(tokens_per_expert.max() / TOP_K)
        self.dropped = float(1 - kept.sum() / chosen.sum())
        return out                                       # a dropped token gets nothing


class MoEClassifier(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.stem = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.blocks = nn.ModuleList([Top2Block(fixed), Top2Block(fixed)])
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = MoEClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x_train), steps, 64):
            logits = model(x_train[rows])
            balance = torch.stack([block.balance for block in model.blocks]).mean()
            loss = F.cross_entropy(logits, y_train[rows]) + BALANCE_WEIGHT * balance
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    busiest, dropped, correct = [], [], 0
    with torch.no_grad():
        for start in range(0, HELD_OUT, 64):
            predicted = model(x_test[start:start + 64]).argmax(1)
            correct += int((predicted == y_test[start:start + 64]).sum())
            busiest.append(model.blocks[0].busiest)
            dropped.append(model.blocks[0].dropped)
    mon.held_out_accuracy = round(correct / HELD_OUT, 3)
    mon.busiest_expert = round(sum(busiest) / len(busiest), 2)
    mon.dropped_share = round(sum(dropped) / len(dropped), 2)
    return mon
