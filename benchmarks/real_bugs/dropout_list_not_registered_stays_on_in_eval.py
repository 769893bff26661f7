"""The model keeps its dropout layers in a plain Python list (``self.dropouts = [nn.Dropout(p)
for _ in tasks]``) next to an ``nn.ModuleList`` of scoring heads: the list's layers are not
submodules, so ``model.eval()`` never reaches them and dropout keeps dropping at prediction
time. Training looks normal; every validation score is taken from a thinned network, is worse
than the model is, and changes from one evaluation of the same inputs to the next.

Reported: "Evaluation mode ignored for dropout list" -
https://github.com/namisan/mt-dnn/issues/45 ("while a nn.ModuleList() is used for the
scoring_list, this is not the case for the dropout_list ... The scoring_list appears to be
correctly switched to evaluation mode while this is not happening for the dropout_list. As a
consequence, dropout is active at prediction time."; the maintainer fixed it). Here a digits
MLP with an encoder, a dropout per task kept in a Python list and one task head in an
nn.ModuleList, validated (model.eval(), torch.no_grad()) every 25 steps. Fix: keep the
dropout layers in an nn.ModuleList.

Measured (300 steps, 360 held-out digits, seed 0): the bug's last validation loss 0.25 and
validation accuracy 0.928 (two evaluations of the same inputs disagree on 7.5% of them); the
fixed twin's 0.16 and 0.95, its evaluations identical.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Evaluation mode ignored for dropout list"
LINK = "https://github.com/namisan/mt-dnn/issues/45"
EXPECTED = ("UNREGISTERED_PARAMETERS", "DROPOUT_IGNORES_EVAL")
STEPS = 300
HELD_OUT = 360
VAL_EVERY = 25
DROPOUT = 0.5


class MultiTaskNet(nn.Module):
    def __init__(self, fixed, tasks=1):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU())
        self.scoring_list = nn.ModuleList([nn.Linear(128, 10) for _ in range(tasks)])
        dropouts = [nn.Dropout(DROPOUT) for _ in range(tasks)]
        # BUG (unfixed): a plain list - model.eval() never reaches these layers
        self.dropout_list = nn.ModuleList(dropouts) if fixed else dropouts

    def forward(self, x, task=0):
        return self.scoring_list[task](self.dropout_list[task](self.encoder(x)))


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return F.cross_entropy(logits, y), (logits.argmax(1) == y).float().mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    model = MultiTaskNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x[:-HELD_OUT], y[:-HELD_OUT], steps)):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val = None
            if step % VAL_EVERY == VAL_EVERY - 1:
                val, _ = evaluate(model, x_val, y_val)
            mon.step(loss, val_loss=val)
    val, accuracy = evaluate(model, x_val, y_val)
    model.eval()
    with torch.no_grad():
        disagree = (model(x_val).argmax(1) != model(x_val).argmax(1)).float().mean()
    model.train()
    mon.extra = {"last_val_loss": round(float(val), 3), "val_accuracy": round(float(accuracy), 3),
                 "evaluations_disagree": round(float(disagree), 3)}
    return mon
