"""A backbone's pretrained-weight loader that keeps a checkpoint entry only when its key is
in ``model_dict`` - a dictionary it has just created empty. No key is ever in it, nothing is
kept, and the model's own (random) state dict is loaded back into it: no error, no warning,
and the "pretrained" backbone is fine-tuned from its random initialisation at the small
rate meant for pretrained layers (loss 0.52 over the last 20 of 200 steps, against 0.34 when loaded).

Reported: "Is this mistake in load pretrained model?" -
https://github.com/jfzhang95/pytorch-deeplab-xception/issues/125 ("The model can't load any
pretrained state_dict at all because model_dict is empty dictionary in here line ... I
think that you should change model_dict to state_dict"; the author pushed that fix). Here a
digits MLP body pretrained on the digits 0-4, loaded through the same filter, fine-tuned on
all ten digits with a new head (backbone 1e-4, head 1e-3).
Fix: test the checkpoint's keys against the model's own state dict (``if k in state_dict``).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._pretrained import backbone, pretrained_backbone

TITLE = "Is this mistake in load pretrained model?"
LINK = "https://github.com/jfzhang95/pytorch-deeplab-xception/issues/125"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)
STEPS = 200
BACKBONE_LR = 1e-4
HEAD_LR = 1e-3


def load_pretrained(body, pretrain_dict, fixed):
    """The report's loader: copy the checkpoint's entries that the model has, then load."""
    model_dict = {}
    state_dict = body.state_dict()
    known = state_dict if fixed else model_dict     # BUG: keys looked up in the empty dict
    for key, value in pretrain_dict.items():
        if key in known:
            model_dict[key] = value
    state_dict.update(model_dict)
    body.load_state_dict(state_dict)


def build(fixed=False, steps=STEPS):
    x, y = classification()
    checkpoint = pretrained_backbone().state_dict()
    torch.manual_seed(0)
    body = backbone()
    load_pretrained(body, checkpoint, fixed)
    head = nn.Linear(64, 10)
    optimizer = torch.optim.AdamW([{"params": body.parameters(), "lr": BACKBONE_LR},
                                   {"params": head.parameters(), "lr": HEAD_LR}])
    return nn.Sequential(body, head), optimizer, nn.CrossEntropyLoss(), batches(x, y, steps)


def run(fixed=False, steps=STEPS, **watch):
    return train_watched(*build(fixed, steps), **watch)
