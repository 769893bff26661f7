"""LoRA adapters frozen by a "prepare the model for training" helper run after they were
added: the helper (like peft's ``prepare_model_for_kbit_training``) freezes every parameter
of the model it is given, meaning the base model, and upcasts it; run on the already
adapted model it sets ``requires_grad=False`` on the LoRA factors too. No gradient reaches
them, the optimizer skips them every step (grad norm 0), and the model stays the
pretrained one.

Reported: "SFTTrainer freezes LoRA adapter when using PEFT model as argument" -
https://github.com/huggingface/trl/issues/3926 (given a model that already had its LoRA
adapters, the trainer applied ``prepare_model_for_kbit_training`` to it again, which froze
all the layers, adapters included: grad_norm 0 from the first step; the fix, PR #4081,
"Fix get_peft_model() so that prepare_model_for_kbit_training does not reapply to an
instance of PeftModel, thus freezing all the layers" - after it "trainable parameters are
correctly set, and grad_norm is no longer 0"). Here an MLP pretrained on the digits 0-4 is
fine-tuned on all ten digits with rank-8 adapters on both of its layers, written by hand;
the optimizer holds the adapters, collected when they were added.

Measured (200 steps, 297 held-out digits): the bug's loss stays at the pretrained model's
(8.3 at the first step, 7.7 at the last), held-out accuracy 0.46; the fixed twin, prepared
before the adapters were added, reaches loss 0.09 and accuracy 0.86.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "SFTTrainer freezes LoRA adapter when using PEFT model as argument"
LINK = "https://github.com/huggingface/trl/issues/3926"
EXPECTED = ("FROZEN_PARAMETERS",)
STEPS = 200
HELD_OUT = 297
RANK, ALPHA = 8, 16


def pretrained_base(x, y):
    """The model to adapt: an MLP trained on the digits 0-4 only."""
    torch.manual_seed(1)
    base = mlp()
    optimizer = torch.optim.Adam(base.parameters(), lr=1e-2)
    seen = y < 5
    for xb, yb in batches(x[seen], y[seen], 150, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(base(xb), yb).backward()
        optimizer.step()
    return base


class LoRALinear(nn.Module):
    """An nn.Linear plus (alpha / r) * B @ A, written by hand."""

    def __init__(self, base, rank=RANK, alpha=ALPHA):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


def add_lora(model):
    """Adapters on every linear layer; the base frozen, the adapters trainable."""
    model.requires_grad_(False)
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = LoRALinear(layer)
    return [p for p in model.parameters() if p.requires_grad]


def prepare_for_training(model):
    """Freeze the base model, keep it in float32, and make the first layer's output require
    grad so checkpointed blocks still backpropagate (what the low-precision prep does, as
    ``enable_input_require_grads``)."""
    for p in model.parameters():
        p.requires_grad_(False)
        p.data = p.data.float()
    model[0].register_forward_hook(lambda module, args, out: out.requires_grad_(True))


def run(fixed=False, steps=STEPS, **watch):
    x, y = classification()
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = pretrained_base(train_x, train_y)
    torch.manual_seed(0)
    if fixed:
        prepare_for_training(model)
        adapters = add_lora(model)
    else:
        adapters = add_lora(model)
        prepare_for_training(model)         # BUG: run on the adapted model, freezes the LoRA
    optimizer = torch.optim.Adam(adapters, lr=1e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(train_x, train_y, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
