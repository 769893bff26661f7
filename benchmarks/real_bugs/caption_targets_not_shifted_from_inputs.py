"""An image captioner trained with the same padded caption as the decoder's input words and
as its targets: at step t the LSTM reads word t and is scored on predicting word t, so it
learns to echo the word it was just given. The training loss falls to nearly zero; at
sampling time, fed only ``<start>``, it answers ``<start>`` again and again and never says
what is in the picture.

Reported: "[image captioning] issues in training phase" -
https://github.com/yunjey/pytorch-tutorial/issues/172 (a reader built their own captioner
after the tutorial, fed the whole ``<start> ... <end>`` caption to the decoder and scored
its outputs against that same caption, as they read the tutorial to do (the tutorial is
right only because it feeds the image feature as the first input, which shifts the words
by one); their loss went to 0 because the model simply read each word from the input and
output it; the input should end one word early and the targets start one word late).
Here: the batch-118 collage captions (the digits of a 2x2 collage in reading order), a
patch encoder and a show-attend-tell decoder.
Fix: decoder inputs ``caption[:, :-1]`` (``<start>`` to the last word), targets
``caption[:, 1:]`` (first word to ``<end>``).

Measured (300 Adam steps, batch 64, 2,000 training collages, 500 held out, seed 0, greedy
decoding from ``<start>``): held-out exact captions 0.00 and words right 0.04 for the bug
(it answers ``<start>`` with ``<start>``), 0.62 and 0.89 for the fixed twin, while the
bug's final training loss is the lower one (0.0004 against 0.07). Model seed shifted by
1000: 0.00 / 0.04 against 0.61 / 0.87.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._caption_collages import (Captioner, captioned, index_batches,
                                                    masked_loss, scores)

TITLE = "[image captioning] issues in training phase"
LINK = "https://github.com/yunjey/pytorch-tutorial/issues/172"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
BATCH = 64
TRAIN, HELD_OUT = 2000, 500
LR = 1e-2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, captions, _ = captioned(TRAIN, seed=0)
    model = Captioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            caption = captions[index]
            if fixed:
                words, targets = caption[:, :-1], caption[:, 1:]
            else:
                words, targets = caption, caption      # BUG: word t predicts word t
            optimizer.zero_grad()
            loss = masked_loss(model(images[index], words), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held_images, held_captions, _ = captioned(HELD_OUT, held_out=True, seed=0)
    mon.held_out_exact, mon.held_out_words = scores(model.caption(held_images), held_captions)
    mon.final_loss = loss.item()
    return mon
