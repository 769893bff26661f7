"""LoRA fine-tuning with gradient checkpointing to save memory: the base network is frozen,
rank-8 adapters sit inside its hidden blocks, and each block runs under the REENTRANT
``torch.utils.checkpoint.checkpoint``. The reentrant checkpoint only builds a backward for
its segment when one of the tensors passed IN requires grad; the blocks' input comes from
the frozen first layer, so it does not, the segment's output comes back detached, and the
adapters inside get no gradient at all (torch's only sign is a "None of the inputs have
requires_grad=True" UserWarning). Only the adapter outside the checkpointed blocks (on the
output layer) learns; the hidden blocks stay the pretrained ones.

Reported: "Gradient checkpointing blocks LoRA weight updates" -
https://github.com/cloneofsimo/lora/issues/26 (with ``--gradient_checkpointing`` the text
encoder's LoRA ``up`` weights stayed exactly zero through training and the trained model
gave "the exact same images as the original" model; the cause, the reentrant checkpoint on
inputs that do not require grad behind a frozen embedding, is fixed in the transformers /
peft world by ``model.enable_input_require_grads()``, which makes the frozen embedding's
output require grad). Here an MLP pretrained on the digits 0-4 (a frozen input layer, two
checkpointed hidden blocks, an output layer) is adapted to all ten digits with rank-8
adapters on the two hidden blocks and the output layer, Adam at 3e-3. Fix: the frozen input layer's
output set to require grad (``enable_input_require_grads``), nothing else.

Measured (500 steps, batch 64, 360 held-out digits): seed 0, held-out accuracy 0.633 for the
bug (the output layer's adapter alone learning) against 0.853 for the fixed twin; seeds
shifted by 1000, 0.647 against 0.883. The fixed twin draws RECOMPUTED_FORWARD_DIFFERS from
watch: the float64 copy its check differentiates is taken without the user's hooks, so the
copy loses the forward hook that ``enable_input_require_grads`` is, its reentrant
checkpoints get no gradient, and a zero gradient is compared with a non-zero difference
quotient (a false alarm).
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._mem158 import accuracy, digits_split

TITLE = "Gradient checkpointing blocks LoRA weight updates"
LINK = "https://github.com/cloneofsimo/lora/issues/26"
EXPECTED = ("NO_GRADIENT",)
STEPS = 500
WIDTH, RANK, ALPHA = 128, 8, 16
PRETRAIN_STEPS = 300
LR = 3e-3


class LoRALinear(nn.Module):
    """A frozen Linear plus a trainable low-rank update B @ A (B starts at zero)."""

    def __init__(self, base):
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        self.a = nn.Parameter(torch.randn(RANK, base.in_features) / base.in_features ** 0.5)
        self.b = nn.Parameter(torch.zeros(base.out_features, RANK))

    def forward(self, x):
        return self.base(x) + (ALPHA / RANK) * (x @ self.a.t() @ self.b.t())


class Block(nn.Module):
    def __init__(self, linear):
        super().__init__()
        self.layers = nn.Sequential(linear, nn.ReLU())

    def forward(self, h):
        return checkpoint(self.layers, h, use_reentrant=True)


def pretrained(x, y):
    """The base network, trained on the digits 0-4 only."""
    net = nn.Sequential(nn.Linear(64, WIDTH), nn.ReLU(), nn.Linear(WIDTH, WIDTH), nn.ReLU(),
                        nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, 10))
    keep = y < 5
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for xb, yb in batches(x[keep], y[keep], PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(net(xb), yb).backward()
        optimizer.step()
    return net


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = digits_split()
    base = pretrained(x_train, y_train)
    first = nn.Sequential(base[0], nn.ReLU()).requires_grad_(False)
    if fixed:      # enable_input_require_grads: the frozen layer's output requires grad
        first.register_forward_hook(lambda module, args, out: out.requires_grad_(True))
    model = nn.Sequential(first, Block(LoRALinear(base[2])), Block(LoRALinear(base[4])),
                          LoRALinear(base[6]))
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
