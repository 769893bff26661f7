"""A vision-language captioner trained on captions that end without an end-of-sequence
token: the tokenizer adds none and the training code appends none, so no position is ever
taught to stop. The model learns the words well, but decoding never ends a caption: after
the last right word it keeps saying more digits until the length limit, and a caption
that runs on is a wrong caption. The loss looks healthy (every word it scores is learned).

Reported: "Fix VLM captioning label alignment and add an EOS stop target" -
https://github.com/KempnerInstitute/KempnerForge/pull/196 (merged; besides shifting the
labels it "appends the tokenizer's EOS to the caption (when defined), reserving its slot
inside max_text_len, so the last caption token is trained to stop"). Here: the 2x2
digit-collage captions (1 to 4 digit words), the four region vectors of a small patch
encoder as a prefix, a 2-layer causal transformer trained for next-token prediction from
``<start>``, Adam, batch 64; greedy decoding of up to 5 tokens, the caption read up to the
first ``<end>``. Fix: ``<end>`` appended to every caption (and so one more target).

Measured (300 steps, 500 held-out collages; exact captions / words right at their
positions): seed 0: 0.00 / 0.90 for the bug against 0.69 / 0.87 for the fixed twin; seeds
+ 1000: 0.00 / 0.92 against 0.57 / 0.80: the bug reads the digits as well (better: it has
fewer targets to learn) but no caption ever ends, so none is right.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._captioning import (END, PAD, START, VOCAB, PrefixCaptioner,
                                              caption_scores, captioned, drawn_seed,
                                              shuffled_batches)

TITLE = "Fix VLM captioning label alignment and add an EOS stop target"
LINK = "https://github.com/KempnerInstitute/KempnerForge/pull/196"
EXPECTED = ("END_TOKEN_NEVER_A_TARGET",)
STEPS = 300
BATCH = 64
TRAIN, HELD_OUT = 2000, 500


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data_seed = drawn_seed()
    images, captions, _ = captioned(TRAIN, seed=data_seed)     # <start> words <end> pad
    if not fixed:
        # BUG: the tokenizer has no EOS and none is appended: the captions end at their
        # last word (here: the <end> of the reference captions blanked to padding)
        captions = torch.where(captions == END, torch.full_like(captions, PAD), captions)
    model = PrefixCaptioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in shuffled_batches(TRAIN, steps, BATCH):
            input_ids = captions[index]
            logits = model(images[index], input_ids)[:, 1:-1]   # text position i -> token i + 1
            optimizer.zero_grad()
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), input_ids[:, 1:].reshape(-1),
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
