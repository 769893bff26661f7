"""Pretrained weights loaded into the backbone, and then the whole model's initialiser run
over it: ``model.apply(init_weights)`` draws fresh weights for every layer, the loaded ones
included, so fine-tuning starts from random features at the small rate meant for pretrained
layers (loss 0.36 over the last 20 of 200 steps, against 0.15 from the loaded weights).

Reported: "Will there be a problem to load pretrained imagenet model?" -
https://github.com/thulab/DeepHash/issues/54 ("you first load model and pretrained model
weights and then run global initializer ... the model weights you load before are randomly
initialized again if I understand correctly, right?"). The report is TensorFlow's
``global_variables_initializer``; here the PyTorch form: a small CNN pretrained on the digits
0-4, loaded, then re-initialised by ``apply``, fine-tuned with SGD (backbone 1e-3, the new
head ten times that, as the report's code does).
Fix: initialise first and load the pretrained weights after (or initialise the new head
only).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Will there be a problem to load pretrained imagenet model?"
LINK = "https://github.com/thulab/DeepHash/issues/54"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)
STEPS = 200
PRETRAIN_STEPS = 300
BACKBONE_LR = 1e-3
HEAD_LR = 1e-2


def backbone():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten())


def pretrained_checkpoint(x, y):
    """The backbone's state dict after training it (with its own head) on the digits 0-4."""
    torch.manual_seed(1)
    body = backbone()
    model = nn.Sequential(body, nn.Linear(128, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    keep = y < 5
    for xb, yb in batches(x[keep], y[keep], PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return body.state_dict()


def init_weights(module):
    """The usual initialiser: Kaiming-normal weights, zero biases, for every conv/linear."""
    if isinstance(module, (nn.Conv2d, nn.Linear)):
        nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
        nn.init.zeros_(module.bias)


def build(fixed=False, steps=STEPS):
    x, y = classification(images=True)
    checkpoint = pretrained_checkpoint(x, y)
    torch.manual_seed(0)
    model = nn.Sequential(backbone(), nn.Linear(128, 10))
    if fixed:
        model.apply(init_weights)
        model[0].load_state_dict(checkpoint)
    else:
        model[0].load_state_dict(checkpoint)
        model.apply(init_weights)               # BUG: draws over the loaded weights
    optimizer = torch.optim.SGD([{"params": model[0].parameters(), "lr": BACKBONE_LR},
                                 {"params": model[1].parameters(), "lr": HEAD_LR}],
                                momentum=0.9)
    return model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps)


def run(fixed=False, steps=STEPS, **watch):
    return train_watched(*build(fixed, steps), **watch)
