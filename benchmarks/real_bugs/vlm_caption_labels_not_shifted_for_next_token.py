"""A vision-language captioner whose labels are the caption's own input ids
(``labels[i] == input_ids[i]``) while the loss does no shift and the model returns logits
over the text positions: each position is scored against the token it is reading, which a
causal decoder can simply copy. The loss falls to nearly zero within a few hundred steps,
and the model has learned to repeat its input instead of predicting the next word: decoded
from ``<start>`` it says ``<start> <start> ...``. Nothing errors.

Reported: "VLM captioning loss collapses to 0: labels not shifted for next-token" -
https://github.com/KempnerInstitute/KempnerForge/issues/154 (``_tokenize_and_mask`` aligned
the labels to the input positions, the cross-entropy does no internal shift and the VLM
architectures return logits over the text positions, so "each logit is scored against the
current, already-visible token - the model copies it and loss collapses to 0.0000 after
warmup"; fixed in PR #196 by shifting the labels for next-token prediction). Here: the
2x2 digit-collage captions (1 to 4 digit words between ``<start>`` and ``<end>``), the
four region vectors of a small patch encoder as a prefix in front of the caption tokens,
a 2-layer causal transformer, Adam, batch 64. Fix: the logit at text position i scored
against token i + 1.

Measured (300 steps, greedy captions of 500 held-out collages; exact captions / words
right): seed 0: 0.00 / 0.00 for the bug against 0.69 / 0.87 for the fixed twin; seeds +
1000: 0.00 / 0.00 against 0.57 / 0.80. The bug's training loss ends near 0.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._captioning import (PAD, START, VOCAB, PrefixCaptioner, caption_scores,
                                              captioned, drawn_seed, shuffled_batches)

TITLE = "VLM captioning loss collapses to 0: labels not shifted for next-token"
LINK = "https://github.com/KempnerInstitute/KempnerForge/issues/154"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
BATCH = 64
TRAIN, HELD_OUT = 2000, 500


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data_seed = drawn_seed()
    images, captions, _ = captioned(TRAIN, seed=data_seed)     # <start> words <end> pad
    model = PrefixCaptioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in shuffled_batches(TRAIN, steps, BATCH):
            input_ids = captions[index]
            logits = model(images[index], input_ids)[:, 1:]    # logits over the text positions
            if fixed:
                logits, labels = logits[:, :-1], input_ids[:, 1:]   # position i -> token i + 1
            else:
                labels = input_ids.clone()           # BUG: labels[i] == input_ids[i], no shift
            optimizer.zero_grad()
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1),
                                   ignore_index=PAD)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held_images, held_captions, _ = captioned(HELD_OUT, held_out=True, seed=data_seed)
    start = torch.full((HELD_OUT, 1), START, dtype=torch.long)
    mon.held_out_exact, mon.held_out_words = caption_scores(
        model.generate(held_images, start), held_captions)
    mon.final_loss = loss.item()
    return mon
