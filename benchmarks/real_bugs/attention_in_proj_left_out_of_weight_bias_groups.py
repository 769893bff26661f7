"""Three optimizer groups built by walking model.modules() and picking each module's
``.weight`` and ``.bias`` (decayed weights, undecayed norm weights, biases): a parameter
under any other name belongs to no group. nn.MultiheadAttention keeps its query/key/value
projection as ``in_proj_weight`` / ``in_proj_bias`` and a learned position table is its
own nn.Parameter, so the attention's projections and the positions are never stepped:
they get gradients every step and keep their initial random values.

Reported: "`build_optimizer()` assign all parameters" -
https://github.com/ultralytics/ultralytics/pull/2855 (the trainer sorted parameters into
groups by a module's ``weight``/``bias`` attributes; the fix "should resolve un-assigned
parameters in optimizer" by walking every module's own named parameters). Here a small
attention classifier of the 8x8 digits (each row a token: Linear(8, 32) embedding plus a
learned position table, one nn.MultiheadAttention(32, 4) with a residual and LayerNorm,
mean pool, Linear(32, 10)), Adam with the trainer's three groups (weights decayed 5e-4),
batches of 64.
Fix: sort every parameter of every module (``named_parameters(recurse=False)``): biases,
norm weights, and all the rest (in_proj_weight, the position table) into the decayed group.

Measured (held-out accuracy on 500 digits, after the run): seed 0: 0.538 with the bug,
0.842 fixed; seeds + 1000: 0.564 vs 0.878.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._regularisation_beginner import accuracy, digits

TITLE = "`build_optimizer()` assign all parameters"
LINK = "https://github.com/ultralytics/ultralytics/pull/2855"
EXPECTED = ("PARAMS_NOT_UPDATING", "OPTIMIZER_MISSING_PARAMS")
STEPS = 300
NORMS = (nn.LayerNorm, nn.BatchNorm1d, nn.BatchNorm2d)


class RowAttention(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.positions = nn.Parameter(0.1 * torch.randn(1, 8, width))
        self.attn = nn.MultiheadAttention(width, 4, batch_first=True)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        h = self.embed(x.view(-1, 8, 8)) + self.positions       # 8 rows as 8 tokens
        a, _ = self.attn(h, h, h, need_weights=False)
        return self.head(self.norm(h + a).mean(dim=1))


def groups_by_attribute(model):
    """BUG: only what a module calls .weight or .bias is sorted into a group."""
    decayed, norm_weights, biases = [], [], []
    for module in model.modules():
        if hasattr(module, "bias") and isinstance(module.bias, nn.Parameter):
            biases.append(module.bias)
        if isinstance(module, NORMS):
            norm_weights.append(module.weight)
        elif hasattr(module, "weight") and isinstance(module.weight, nn.Parameter):
            decayed.append(module.weight)
    return decayed, norm_weights, biases


def groups_by_name(model):
    """The fix: every module's own parameters, whatever they are called."""
    decayed, norm_weights, biases = [], [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            if name == "bias":
                biases.append(p)
            elif isinstance(module, NORMS):
                norm_weights.append(p)
            else:
                decayed.append(p)
    return decayed, norm_weights, biases


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    model = RowAttention()
    decayed, norm_weights, biases = (groups_by_name if fixed else groups_by_attribute)(model)
    optimizer = torch.optim.Adam(biases, lr=1e-3, betas=(0.937, 0.999))
    optimizer.add_param_group({"params": decayed, "weight_decay": 5e-4})
    optimizer.add_param_group({"params": norm_weights, "weight_decay": 0.0})
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
