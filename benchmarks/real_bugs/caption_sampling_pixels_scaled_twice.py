"""A captioner trained on pictures stored as 0-255 pixel values and divided by 255 once; the
captioning script that runs afterwards resizes each picture with a function that already
returns floats in [0, 1], then divides by 255 again as the training pipeline does. Every
picture reaches the encoder 255 times darker than any it was trained on, nearly blank, and
the model writes nearly the same caption for all of them. Training itself is untouched:
its loss, and any validation on the training pipeline, look fine.

Reported: "always returns the same caption" -
https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/issues/101 (with the
tutorial's trained checkpoint the captioning script gave the same caption for every image;
others saw the same; the fixes that worked were to skip the replacement resize, or to turn
its float output back into 0-255 integers before the script's division by 255 - the resize
the script had relied on returned 0-255 integers, its replacement returns floats in
[0, 1]). Here: the batch-118 collage captions with pixels stored as 0-255, a patch encoder
and a show-attend-tell decoder; the captioning step is run on the held-out collages after
training.
Fix: scale the pixels to [0, 1] once (keep the resize's output as 0-255 integers, or drop
the division).

Measured (300 Adam steps, batch 64, 2,000 training collages, 500 held out, seed 0, greedy
decoding): the bug's captioning script writes 2 distinct captions for the 500 held-out
collages (exact 0.002, words right 0.29); the fixed script 399 distinct (exact 0.55, words
0.86). The two runs' training is identical (final loss 0.107 both). Model seed shifted by
1000: exact 0.01 against 0.62.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._caption_collages import (Captioner, captioned, index_batches,
                                                    masked_loss, scores)

TITLE = "always returns the same caption"
LINK = "https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/issues/101"
EXPECTED = ("INFERENCE_INPUTS_RESCALED",)
STEPS = 300
BATCH = 64
TRAIN, HELD_OUT = 2000, 500
LR = 1e-2


def stored(images):
    """The pictures as saved: 0-255 pixel values."""
    return (images * 255).round()


def resize(pixels):
    """The replacement resize (identity size here): like skimage's, it hands back floats
    in [0, 1] whatever the input's range."""
    return pixels / 255.0


def caption_script(model, pixels, fixed):
    """The captioning script: resize, then the division by 255 the training pipeline does."""
    image = resize(pixels)
    if fixed:
        image = (image * 255).round()          # back to 0-255, as the old resize returned
    return model.caption(image / 255.0)        # BUG (fixed=False): divided by 255 twice


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, captions, _ = captioned(TRAIN, seed=0)
    pixels = stored(images)
    model = Captioner()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            caption = captions[index]
            optimizer.zero_grad()
            batch = pixels[index] / 255.0                       # the training pipeline
            loss = masked_loss(model(batch, caption[:, :-1]), caption[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held_images, held_captions, _ = captioned(HELD_OUT, held_out=True, seed=0)
    generated = caption_script(model, stored(held_images), fixed)
    mon.held_out_exact, mon.held_out_words = scores(generated, held_captions)
    mon.distinct_captions = len({tuple(row) for row in generated.tolist()})
    mon.final_loss = loss.item()
    return mon
