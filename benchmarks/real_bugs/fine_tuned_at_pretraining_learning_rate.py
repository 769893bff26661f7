"""A pretrained transformer fine-tuned with a learning rate fit for training from scratch,
hundreds of times the usual fine-tuning rate: the first updates rewrite the pretrained
weights, the encoder's outputs become the same for every input, and the classifier can only
learn the class frequencies: the loss sits at chance and every input gets the same scores.

Reported: "BERT encoding layer produces same output for all inputs during evaluation" -
https://github.com/huggingface/transformers/issues/735 ("Changing my learning rate from
0.01 to 5e-5 worked for me"; another user: "I had the same output logits for a fine-tuned
model, and your solution worked for me"). Here a small post-norm transformer over the rows
of a digit, pretrained on the digits 0-4, fine-tuned on all ten with a new head by AdamW at
0.03 (30 times the 1e-3 this small model fine-tunes well at; BERT's usual rates are 2e-5 to
5e-5, and 0.01 is 200 times those).
Fix: fine-tune at the usual rate (here 1e-3).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._pretrained import pretrained_transformer

TITLE = "BERT encoding layer produces same output for all inputs during evaluation"
LINK = "https://github.com/huggingface/transformers/issues/735"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    x, y = classification()
    body = pretrained_transformer()
    torch.manual_seed(0)
    model = nn.Sequential(body, nn.Linear(64, 10))
    lr = 1e-3 if fixed else 3e-2      # BUG: a from-scratch rate for fine-tuning
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(),
                         batches(x.reshape(-1, 8, 8), y, steps), **watch)
