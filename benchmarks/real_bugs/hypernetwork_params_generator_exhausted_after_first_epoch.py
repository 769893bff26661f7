"""A hypernetwork regressor whose optimizer is rebuilt every epoch (to lower the rates) from
a parameter list kept as a ``filter(...)`` object. A ``filter`` is a one-shot iterator: the
first optimizer built consumes it, and every later rebuild receives an empty parameter group
for the hypernetwork. From the second epoch on only the backbone trains; the hypernetwork
that generates the target network's weights stays frozen where epoch one left it. Torch
accepts an empty group without a word, the loss keeps falling (the backbone still learns),
and the model ends clearly worse than one whose hypernetwork trained throughout.

Reported: "HyperNetWork is not being trained" - https://github.com/SSL92/hyperIQA/issues/32
(``self.hypernet_params = filter(lambda p: id(p) not in backbone_params,
self.model_hyper.parameters())`` fed to an Adam rebuilt each epoch: "after the first epoch,
the optimizer doesn't optimize the HyperNetwork anymore because self.hypernet_params is
empty"; the fix: wrap the filter in ``list(...)``). Here hyperIQA's layout at digits scale:
a backbone MLP (pretrained for 150 steps on digit classification, as hyperIQA's
backbone comes pretrained) gives each image a content vector and a semantic vector; the hypernetwork
maps the semantic vector to the weights and bias of a per-image target network (64 -> 16 ->
1) that scores the content vector; the score regresses the digit's standardised value.
Adam, the hypernetwork at 10x the backbone's rate as in hyperIQA, the rates divided by 2
each epoch and the optimizer rebuilt then. Fix: ``list(filter(...))``.

Measured (600 steps in 6 epochs; held-out MSE of the standardised digit value on 297
digits, lower is better): seed 0: 0.155 with the bug against 0.077 for the fixed twin; seeds
shifted by 1000: 0.155 against 0.083. Both runs rebuild Adam every epoch, as hyperIQA does
(its own, separate cost: the moments restart each epoch); the twin keeps that.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, index_batches, regression

TITLE = "HyperNetWork is not being trained"
LINK = "https://github.com/SSL92/hyperIQA/issues/32"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS", "PARAMS_NOT_UPDATING")
STEPS = 600
EPOCHS, HELD_OUT, HIDDEN = 6, 297, 16
LR, HYPER_RATIO = 1e-3, 10
PRETRAIN_STEPS = 150


class HyperRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, 128), nn.ReLU())
        self.content = nn.Linear(128, 64)
        self.semantic = nn.Linear(128, 32)
        self.hyper = nn.Sequential(nn.Linear(32, 64), nn.ReLU(),
                                   nn.Linear(64, 64 * HIDDEN + HIDDEN + HIDDEN + 1))

    def forward(self, x):
        h = self.backbone(x)
        content, generated = torch.relu(self.content(h)), self.hyper(torch.relu(self.semantic(h)))
        w1, b1, w2, b2 = generated.split([64 * HIDDEN, HIDDEN, HIDDEN, 1], dim=1)
        hidden = torch.relu(torch.bmm(w1.view(-1, HIDDEN, 64), content.unsqueeze(2)).squeeze(2) / 8
                            + b1)
        return (hidden * w2).sum(1) / 4 + b2.squeeze(1)


def pretrain(backbone, x, labels):
    """The backbone arrives pretrained (hyperIQA's is an ImageNet ResNet-50): a short digit
    classification run with a throwaway head, before the watched training."""
    head = nn.Linear(128, 10)
    optimizer = torch.optim.Adam([*backbone.parameters(), *head.parameters()], lr=1e-3)
    for xb, yb in batches(x, labels, PRETRAIN_STEPS, seed=1):
        loss = nn.functional.cross_entropy(head(backbone(xb)), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    labels = classification()[1][order][:-HELD_OUT]
    model = HyperRegressor()
    pretrain(model.backbone, x_train, labels)
    backbone_ids = {id(p) for p in model.backbone.parameters()}
    hyper_params = filter(lambda p: id(p) not in backbone_ids, model.parameters())
    if fixed:
        hyper_params = list(hyper_params)
    # BUG (fixed=False): a one-shot filter, empty for every optimizer after the first

    def build(epoch):
        scale = 0.5 ** epoch
        return torch.optim.Adam([{"params": hyper_params, "lr": LR * HYPER_RATIO * scale},
                                 {"params": model.backbone.parameters(), "lr": LR * scale}])
    per_epoch = steps // EPOCHS
    optimizer = build(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, rows in enumerate(index_batches(len(x_train), steps, 64, seed=0)):
            if step and step % per_epoch == 0:
                optimizer = build(step // per_epoch)      # rebuilt each epoch, as in hyperIQA
            loss = nn.functional.mse_loss(model(x_train[rows]), y_train[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = round(float(nn.functional.mse_loss(model(x_test), y_test)), 4)
    return mon
