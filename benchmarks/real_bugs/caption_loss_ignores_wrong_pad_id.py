"""A captioner scored with ``nn.CrossEntropyLoss()`` at its default ``ignore_index=-100``
while the caption tokenizer pads with id 0: no target is ever -100, so every padding
position after ``<end>`` is scored as a word the model must predict. The tokenizer pads
every caption to a fixed context length, so about half the targets are padding; the loss
is an average over real words and padding together, the easy padding targets pull it
down, and the words that describe the picture get a smaller share of every gradient. Training runs; nothing
errors; the captions come out worse.

Reported: "Ignore pad tokens in captioning loss" -
https://github.com/mlfoundations/open_clip/pull/316 (the CoCa captioning loss was ignoring
the wrong padding id: the loss ignored -100, the tokenizer pads with 0; the merged fix
passes the tokenizer's padding id as the loss's ignore index). Here: the batch-118 collage
captions (the digits of a 2x2 collage in reading order, 1 to 4 words) padded with 0 to a
fixed context of 8 tokens, a patch encoder and a show-attend-tell decoder.
Fix: ``nn.CrossEntropyLoss(ignore_index=PAD)`` with the tokenizer's padding id.

Measured (300 Adam steps, batch 64, 2,000 training collages, 500 held out, seed 0, greedy
decoding; 46% of the targets are padding): held-out exact captions 0.13 and words right
0.58 for the bug, 0.62 and 0.89 for the fixed twin. The harm is slower learning (the bug
sits longer on the plateau before the words are read from the picture), so it varies with
the seed: model seed shifted by 1000, 0.54 / 0.85 against 0.61 / 0.87; by 3, 0.06 against
0.73 exact. Padded only to the batch's longest caption (28% padding) the gap was smaller
and not always there (seed 0: 0.36 against 0.62 exact; shift 1: 0.65 against 0.61).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._caption_collages import (PAD, VOCAB, Captioner, captioned,
                                                    index_batches, scores)

TITLE = "Ignore pad tokens in captioning loss"
LINK = "https://github.com/mlfoundations/open_clip/pull/316"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 300
BATCH = 64
TRAIN, HELD_OUT = 2000, 500
LR = 1e-2
CONTEXT = 8            # the tokenizer pads every caption to this many tokens


def tokenized(captions):
    """The captions padded with PAD to the tokenizer's fixed context length."""
    extra = torch.full((len(captions), CONTEXT - captions.shape[1]), PAD, dtype=torch.long)
    return torch.cat([captions, extra], 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, captions, _ = captioned(TRAIN, seed=0)
    captions = tokenized(captions)
    model = Captioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    # BUG (fixed=False): the default ignore_index (-100) never matches the padding id 0
    criterion = nn.CrossEntropyLoss(ignore_index=PAD) if fixed else nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            caption = captions[index]
            optimizer.zero_grad()
            logits = model(images[index], caption[:, :-1])
            loss = criterion(logits.reshape(-1, VOCAB), caption[:, 1:].reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held_images, held_captions, _ = captioned(HELD_OUT, held_out=True, seed=0)
    mon.held_out_exact, mon.held_out_words = scores(model.caption(held_images), held_captions)
    mon.final_loss = loss.item()
    return mon
