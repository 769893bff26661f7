"""A recurrent network trained with a gradient-clipping setting that never reaches the
training step: the config names ``grad_clip``, the trainer reads its own attribute, which
was left at ``None``, and skips the clip. Long sequences through a plain tanh RNN at a
learning rate chosen for clipped training then take the occasional huge step, and the loss
jumps up again and again instead of settling.

Reported: "Loss could easily be nan during training." -
https://github.com/chentuochao/Sound_Bubble/issues/4 ("The grad_clip is not passed to model
parameter so error will be triggered in model. Actually, the model is suffering from
gradient exploding and loss will go to nan after about 2000 iterations"; the maintainer:
RNN training explodes easily, "the code has gradient clipping by default"). Here the 8x8
digits read pixel by pixel (64 steps) by an nn.RNN. Fix: pass the setting through, so
``clip_grad_norm_`` runs before every step.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Loss could easily be nan during training."
LINK = "https://github.com/chentuochao/Sound_Bubble/issues/4"
EXPECTED = ("EXPLODING_GRADIENTS", "LR_TOO_HIGH")
STEPS = 200
CONFIG = {"lr": 0.1, "grad_clip": 0.5}   # at a clip of 1.0 the fixed twin's loss still
# rose late (1.36 -> 2.04 by step 140) on one machine's float rounding and not another's


class PixelRNN(nn.Module):
    def __init__(self, hidden=48):
        super().__init__()
        self.rnn = nn.RNN(1, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, 10)

    def forward(self, x):                     # x: (batch, 64 pixels, 1)
        out, _ = self.rnn(x)
        return self.classifier(out[:, -1])


class Trainer:
    def __init__(self, model, config, pass_clip):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=0.9)
        # BUG when not passed: the setting stays in the config; the step reads None
        self.grad_clip = config["grad_clip"] if pass_clip else None

    def step(self, xb, yb):
        self.optimizer.zero_grad()
        loss = nn.functional.cross_entropy(self.model(xb), yb)
        loss.backward()
        if self.grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.optimizer.step()
        return loss


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = PixelRNN()
    trainer = Trainer(model, CONFIG, pass_clip=fixed)
    with nd.watch(model, trainer.optimizer, **watch) as mon:
        for xb, yb in batches(x.view(-1, 64, 1), y, steps):
            mon.step(trainer.step(xb, yb))
    return mon
