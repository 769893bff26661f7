"""A part-based classifier whose per-part layers and per-part scale/offset parameters are
kept in plain Python dicts built in __init__: nn.Module registers attributes that are
modules, parameters, ModuleDicts or ParameterDicts, never the contents of a dict, so
none of them is in model.parameters(). The optimizer trains the registered head alone;
every part's layer keeps its random weights, and the head classifies from a few random
features per part.

Reported: "parameters not registered in module" -
https://github.com/pytorch/pytorch/issues/632 (``self.waggrs[rel] = {'w':
nn.Parameter(...), 'b': nn.Parameter(...)}`` and ``self.list_relations[rel] =
nn.Linear(...)`` in dicts: "Such parameters are not registered in the list of module's
parameters."). Here each 8x8 digit is cut into its four 4x4 quadrants (the parts); each
quadrant has its own Linear(16, 4), ReLU, and a learned scale 'w' and offset 'b'; the
four 4-feature codes are concatenated and a registered Linear(16, 10) classifies; Adam
(3e-3), batches of 64, 300 steps, held-out loss every 50 steps.
Fix: nn.ModuleDict for the layers and an nn.ParameterDict per part (string keys).

Measured (held-out accuracy on 500 digits): 0.506 with the bug, 0.912 fixed;
seeds + 1000: 0.644 vs 0.896.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "parameters not registered in module"
LINK = "https://github.com/pytorch/pytorch/issues/632"
EXPECTED = ("UNREGISTERED_PARAMETERS", "OPTIMIZER_MISSING_PARAMS", "PARAMS_NOT_UPDATING")
STEPS = 300
PARTS = ("top_left", "top_right", "bottom_left", "bottom_right")
CODE = 4


def quadrants(x):
    """(batch, 64) digits -> {part: (batch, 16)} of their 4x4 quadrants."""
    img = x.view(-1, 8, 8)
    cuts = {"top_left": img[:, :4, :4], "top_right": img[:, :4, 4:],
            "bottom_left": img[:, 4:, :4], "bottom_right": img[:, 4:, 4:]}
    return {part: cut.reshape(-1, 16) for part, cut in cuts.items()}


class PartNet(nn.Module):
    def __init__(self, fixed=False, classes=10):
        super().__init__()
        layers, scales = {}, {}
        for part in PARTS:
            scales[part] = {"w": nn.Parameter(1.0 + 0.1 * torch.randn(CODE)),
                            "b": nn.Parameter(torch.zeros(CODE))}
            layers[part] = nn.Linear(16, CODE)
        if fixed:
            self.layers = nn.ModuleDict(layers)
            self.scales = nn.ModuleDict({p: nn.ParameterDict(s) for p, s in scales.items()})
        else:                  # BUG: plain dicts - nothing in them is registered
            self.layers, self.scales = layers, scales
        self.head = nn.Linear(CODE * len(PARTS), classes)

    def forward(self, x):
        codes = []
        for part, cut in quadrants(x).items():
            scale = self.scales[part]
            codes.append(F.relu(self.layers[part](cut)) * scale["w"] + scale["b"])
        return self.head(torch.cat(codes, dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = PartNet(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 50 == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(xh), yh).item()
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
