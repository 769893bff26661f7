"""Healthy: a 12-block pre-norm residual MLP with AdamW and a cosine schedule."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/healthy-residual"
FRAMEWORK = "torch"
EXPECTED = None
DESCRIPTION = ("Twelve residual blocks (LayerNorm -> Linear -> ReLU -> Linear, plus the skip), "
               "AdamW with weight decay and a cosine learning-rate schedule: deep, yet healthy.")
FIX = "Nothing to fix."
STEPS = 120


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1, self.act, self.fc2 = nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), *[Block(64) for _ in range(12)], nn.LayerNorm(64),
                          nn.Linear(64, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    return mon
