"""Fine-tuning a model that ``from_pretrained`` handed back in eval mode, without calling
``model.train()``: dropout never acts, and the model, called by keyword the Hugging Face
way, overfits its small training set.

Reported: "Add `model.train()` line to ReadMe training example" -
https://github.com/huggingface/transformers/pull/1703 (from_pretrained "sets the model in
evaluation mode by default using model.eval() (Dropout modules are deactivated). To train
the model, you should first set it back in training mode with model.train()", and the
README's training loop did not). Here a small classifier with dropout, loaded from a saved
state and put in eval mode as from_pretrained does, takes ``input_ids=`` and ``labels=``
and returns its loss in an output dict. Fix: ``model.train()`` before the loop.
"""
import io

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Add `model.train()` line to ReadMe training example"
LINK = "https://github.com/huggingface/transformers/pull/1703"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 120


class PixelClassifier(nn.Module):
    """A keyword-called model returning its loss, as Hugging Face models do."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.3),
                                  nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.3))
        self.classifier = nn.Linear(128, 10)

    def forward(self, input_ids=None, labels=None):
        logits = self.classifier(self.body(input_ids))
        loss = None if labels is None else nn.functional.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits}


def from_pretrained(state):
    """Load the saved weights and switch to eval mode, as ``from_pretrained`` does."""
    model = PixelClassifier()
    model.load_state_dict(torch.load(state))
    model.eval()
    return model


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    saved = io.BytesIO()
    torch.save(PixelClassifier().state_dict(), saved)
    saved.seek(0)
    model = from_pretrained(saved)
    if fixed:
        model.train()                   # BUG when not fixed: never called
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            outputs = model(input_ids=xb, labels=yb)
            outputs["loss"].backward()
            optimizer.step()
            optimizer.zero_grad()
            mon.step(outputs["loss"])
    return mon
