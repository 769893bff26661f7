"""A dialogue model's collate function pads the token types from the wrong field of each
sample: it takes the input ids (field 0) where the speaker tokens (field 1) belong, so the
"token types" are the words again. GPT-2 style, the types are looked up in the word
embedding table, so each word is simply added to itself and nothing tells the model which
speaker said what. It learns which request word a dialogue holds (the loss falls to about
ln 2) and guesses who asked for it.

Reported: "maybe wrong in PadCollate" -
https://github.com/devjwsong/gpt2-dialogue-generation-pytorch/issues/11 (the collate
appends ``seqs[0]`` to the token types, "should change 0 to 1"; the author: "I don't know
why this stupid error is discovered now"). Here two-speaker dialogues ([SP1] turn [SP2]
turn, 3-8 filler words a turn) with one request word in one turn, four classes (which word,
which speaker), right-padded by a collate function; word + type embedding (one table), a
per-token MLP, a mean over the real tokens, Adam, 300 steps of 32 dialogues.

Fix: pad the token types from the speaker field (``b[1]``), as the author did.

Measured (held-out accuracy, 1000 dialogues): 0.49 with the bug, 1.00 fixed; seeds + 1000:
0.50 vs 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._collate315 import DialogueClassifier, accuracy, dialogues, pad_collate, rng

TITLE = "maybe wrong in PadCollate"
LINK = "https://github.com/devjwsong/gpt2-dialogue-generation-pytorch/issues/11"
EXPECTED = ("INPUT_FEATURES_DUPLICATED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    r = rng(0)
    train, held = dialogues(3000, r), dialogues(1000, r)
    model = DialogueClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            batch = [train[i] for i in r.integers(len(train), size=32)]
            # BUG (unfixed): the token types are padded from the input ids
            ids, types, labels = pad_collate(batch, fixed=fixed)
            loss = F.cross_entropy(model(ids, types), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, held, fixed=fixed)
    return mon
