"""Shared pieces of real-bug batch 173 (LoRA and adapters written by hand): a small MLP
pretrained on the 8x8 digits, a new domain to adapt it to (the same digits mirrored left to
right), and a held-out split of both. Each case writes its own adapter and its own bug.
Used by lora_scale_multiplies_frozen_base_output, prefix_tuning_mask_zeros_hide_virtual_tokens,
relora_reset_without_merging_adapters, relora_optimizer_state_not_pruned_at_restart and
dora_optimizer_built_from_lora_model."""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp

HELD_OUT = 497          # the last rows: held out from pretraining and from fine-tuning


def mirrored(x):
    """The digits (N, 64) flipped left to right: the new domain the adapter must learn."""
    return x.reshape(-1, 8, 8).flip(2).reshape(-1, 64)


def split():
    """(train_x, train_y, test_x, test_y) of the plain digits."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def pretrained_base(train_x, train_y, hidden=64, steps=400):
    """The model to adapt: an MLP trained on the plain digits (its own fixed seed)."""
    torch.manual_seed(1)
    base = mlp(hidden=hidden)
    optimizer = torch.optim.Adam(base.parameters(), lr=1e-2)
    for xb, yb in batches(train_x, train_y, steps, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(base(xb), yb).backward()
        optimizer.step()
    return base


@torch.no_grad()
def accuracy(model, x, y):
    was = model.training
    model.eval()
    result = round(float((model(x).argmax(1) == y).float().mean()), 3)
    model.train(was)
    return result
