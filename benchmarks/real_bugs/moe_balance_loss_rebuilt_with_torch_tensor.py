"""A mixture-of-experts model collects each MoE layer's load-balancing loss in a list and
sums them as ``torch.tensor(loss_list)``: ``torch.tensor`` copies the values into a new
leaf tensor (it is ``x.clone().detach()``), so the balancing term adds to the logged loss
but sends no gradient to the gates. Training runs, the loss looks as it should, and the
gates are free to send most inputs to a few experts.

Reported: "Balance loss is not optimized" - https://github.com/laekov/fastmoe/issues/49
("``torch.tensor(loss_list)`` will remove the ``grad_fn`` of each loss ... We should use
``torch.cat`` instead"; fixed by the maintainers). Here two switch-style MoE layers (4
experts each, top-1 routing, the Switch Transformer balance loss E x sum_i f_i P_i) on the
digits, the cross-entropy plus 0.5 x the mean of the two layers' balance losses. Fix:
``torch.stack(loss_list).mean()``.

Measured (300 steps, 297 held-out digits, the first MoE layer over the last 50 steps): the
bug's gate sends every input to one expert (busiest expert's share 1.00, 0.25 would be
even; the three others never train), held-out accuracy 0.89; the fixed twin's busiest
expert 0.26, 0.87 (on this small task one expert is enough: the harm is the collapsed
routing the balance loss exists to prevent).
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Balance loss is not optimized"
LINK = "https://github.com/laekov/fastmoe/issues/49"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 300
HELD_OUT = 297
EXPERTS = 4
BALANCE_WEIGHT = 0.5


class SwitchLayer(nn.Module):
    """Top-1 routing over small expert MLPs; keeps its balance loss for the step."""

    def __init__(self, width, experts=EXPERTS):
        super().__init__()
        self.gate = nn.Linear(width, experts)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(width, width), nn.ReLU())
                                     for _ in range(experts))
        self.balance_loss = None
        self.load = None

    def forward(self, h):
        probs = F.softmax(self.gate(h), dim=1)                     # (N, E)
        top = probs.argmax(1)
        out = torch.zeros_like(h)
        for e, expert in enumerate(self.experts):
            chosen = top == e
            if chosen.any():
                out[chosen] = expert(h[chosen]) * probs[chosen, e:e + 1]
        fraction = F.one_hot(top, len(self.experts)).float().mean(0)   # f_i
        self.balance_loss = len(self.experts) * (fraction * probs.mean(0)).sum()
        self.load = fraction.detach()
        return h + out


class MoEClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.moe = nn.ModuleList([SwitchLayer(64), SwitchLayer(64)])
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        h = self.stem(x)
        for layer in self.moe:
            h = layer(h)
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = MoEClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loads = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            logits = model(xb)
            loss_list = [layer.balance_loss for layer in model.moe]
            if fixed:
                balance = torch.stack(loss_list).mean()
            else:
                balance = torch.tensor(loss_list).mean()    # BUG: a copy with no gradient
            loss = F.cross_entropy(logits, yb) + BALANCE_WEIGHT * balance
            loss.backward()
            optimizer.step()
            mon.step(loss)
            loads.append(model.moe[0].load)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    mon.busiest_expert = round(float(torch.stack(loads[-50:]).mean(0).max()), 2)
    return mon
