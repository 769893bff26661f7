"""A word-level language model's config carries ``learning_rate: 1.0`` - a rate for plain
SGD - and the script builds Adam with it. Adam's step is about lr per weight whatever the
gradient's size, so every weight moves by about 1.0 each step: the LSTM's gates saturate,
the logits swing, and the loss never settles near what the model can reach.

Reported: "Adam's learning rate" - https://github.com/rajveermalviya/language-modeling/issues/3
("the loss during training didn't really went down even after many epochs. I think this
is because you use learning rate of 1.0 in the config file. After I use Adam optimizer
with it's default learning rate (which is 0.001), the training get much better"; the
author updated the config). Here a character-level LSTM on the sonnets (64 hidden units,
windows of 32 characters).

Measured (300 steps): the bug's first 5 losses 7.89 (the first steps throw the logits
far off; a fresh model starts at 4.05), its last-20 training loss 3.46 - above the 3.12 of
predicting the characters' frequencies alone; the fixed twin (Adam at 3e-3) 1.88.
Fix: Adam at its own scale of rates (1e-3 .. 3e-3), or keep 1.0 for SGD.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Adam's learning rate"
LINK = "https://github.com/rajveermalviya/language-modeling/issues/3"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 300
CONFIG = {"learning_rate": 1.0}          # the config file's rate, tuned for SGD


class CharLSTM(nn.Module):
    def __init__(self, vocab, embed=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):                          # ids: (batch, time)
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)                        # (batch, time, vocab)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharLSTM(vocab)
    lr = 3e-3 if fixed else CONFIG["learning_rate"]          # BUG: SGD's rate given to Adam
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, length=32), **watch)
