"""A model trained with its weights stored in bfloat16 (``model.to(torch.bfloat16)``, no
float32 master copy): bfloat16 keeps 8 significant bits, so a weight near 1.0 can only move
in steps of 1/128, and any update smaller than half of that rounds back to the old value.
The layer-norm gains start at exactly 1.0 and never move; weights of order 0.1-0.3 drop
many of their updates too, and the loss ends higher than the same run's in float32 (0.13
against 0.10 after 200 steps).

Reported: "Fix numerical issues by holding params in fp32" -
https://github.com/vllm-project/speculators/pull/765 ("All models trained with speculators
end up with untrained normalization layers (.weight == 1.0) ... This is happening because
our training is done fully in bf16 ... the gradient update delta is smaller than the step
size to move away from 1.0 in bf16 format"). Here a digits MLP with LayerNorm, cast to
bfloat16, trained with AdamW at lr=1e-3 (its updates are about lr in size).
Fix: keep the parameters in float32 (and run the forward under autocast if speed matters).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Fix numerical issues by holding params in fp32"
LINK = "https://github.com/vllm-project/speculators/pull/765"
EXPECTED = ("UPDATES_ROUNDED_AWAY", "PARAMS_NOT_UPDATING")
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.LayerNorm(64), nn.ReLU(),
                          nn.Linear(64, 64), nn.LayerNorm(64), nn.ReLU(), nn.Linear(64, 10))
    dtype = torch.float32 if fixed else torch.bfloat16
    # BUG (when not fixed): parameters stored in bfloat16, so AdamW writes each update into
    # a bfloat16 weight and every update below half a bfloat16 step is rounded away
    model = model.to(dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    data = ((xb.to(dtype), yb) for xb, yb in batches(x, y, steps))
    loss_fn = lambda out, yb: nn.functional.cross_entropy(out.float(), yb)   # noqa: E731
    return train_watched(model, optimizer, loss_fn, data, **watch)
