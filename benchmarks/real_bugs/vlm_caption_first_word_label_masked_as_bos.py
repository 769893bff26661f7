"""A vision-language captioner whose data code sets ``labels[0] = IGNORE_INDEX`` to skip the
``<BOS>`` token it expects the tokenizer to have put first - but the tokenizer adds no BOS,
so position 0 holds the caption's first word, and the first word is never a target. The
image tokens come right before the caption, so the one prediction that has to read the
picture without any caption word to lean on - the first word - is never trained: at
inference the model has to start the caption itself, picks a word it was never taught to
pick, and every later word is conditioned on that wrong start. Training runs and the loss
falls as usual (it scores every other word).

Reported: "<BOS> token not added, loss calculation instead skips the first word" -
https://github.com/OpenHelix-Team/cobra/issues/13 (the dataset code inserts the image
patches after the BOS and sets ``labels[0] = IGNORE_INDEX`` "since we're inserting the image
patches right after", but with the default tokenizer the first input id is not the BOS: it
is the caption's first word, so "labels were skipping the first word"). Here: the 2x2
digit-collage captions (1 to 4 digit words, then ``<end>``), the four region vectors of a
small patch encoder as the prefix, a 2-layer causal transformer, next-token targets from
the last image position on, Adam, batch 64; held-out captions decoded greedily right after
the image. Fix: the first word kept as a target (in the repository: the BOS added, so the
ignored position is the BOS).

Measured (300 steps, 500 held-out collages; exact captions / words right): seed 0: 0.06 /
0.45 for the bug against 0.68 / 0.87 for the fixed twin; seeds + 1000: 0.03 / 0.21 against
0.64 / 0.85.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._captioning import (PAD, VOCAB, PrefixCaptioner, caption_scores,
                                              captioned, drawn_seed, shuffled_batches)

TITLE = "<BOS> token not added, loss calculation instead skips the first word"
LINK = "https://github.com/OpenHelix-Team/cobra/issues/13"
EXPECTED = ("LOSS_MASK_SHIFTED",)
STEPS = 300
BATCH = 64
TRAIN, HELD_OUT = 2000, 500
IGNORE_INDEX = -100


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data_seed = drawn_seed()
    images, captions, _ = captioned(TRAIN, seed=data_seed)
    input_ids = captions[:, 1:]                  # the tokenizer adds no BOS: words <end> pad
    labels = torch.where(input_ids == PAD, torch.full_like(input_ids, IGNORE_INDEX), input_ids)
    if not fixed:
        labels[:, 0] = IGNORE_INDEX              # BUG: meant for a BOS that is not there
    model = PrefixCaptioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in shuffled_batches(TRAIN, steps, BATCH):
            # from the last image position on: position i predicts text token i
            logits = model(images[index], input_ids[index])[:, :-1]
            optimizer.zero_grad()
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), labels[index].reshape(-1),
                                   ignore_index=IGNORE_INDEX)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held_images, held_captions, _ = captioned(HELD_OUT, held_out=True, seed=data_seed)
    nothing = torch.zeros(HELD_OUT, 0, dtype=torch.long)       # the caption starts after the image
    mon.held_out_exact, mon.held_out_words = caption_scores(
        model.generate(held_images, nothing), held_captions)
    mon.final_loss = loss.item()
    return mon
