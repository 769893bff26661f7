"""A captioner with batch normalisation in its CNN encoder, trained normally, then asked for
captions one picture at a time without ``model.eval()``: in training mode each batch-norm
layer normalises with the statistics of the batch in front of it, here one picture's few
feature-map positions, so every channel is re-centred and re-scaled per picture and what
the encoder learned to read from absolute activations is gone (and the running averages
are overwritten by the test pictures as a side effect). About half the captions that
were right come out wrong. Training is untouched; its loss looks fine.

Reported: "[Image Captioning] Training problem" -
https://github.com/yunjey/pytorch-tutorial/issues/12 (a user's captioner, written after the
tutorial, trained to the expected loss but captioned badly; the author's answer lists what
to check, among them switching the CNN to evaluation mode before sampling, because in
training mode batch normalisation uses the statistics of the mini-batch, and for one image
that wipes out the activations; give it many images or call eval). Here: the batch-118
collage captions, a patch encoder with a batch-norm layer and a show-attend-tell decoder;
the held-out collages are captioned one at a time after training.
Fix: ``model.eval()`` before sampling.

Measured (300 Adam steps, batch 64, 2,000 training collages, 200 held out captioned one
at a time, seed 0, greedy decoding): held-out exact captions 0.42 and words right 0.73 in
training mode (the bug), 0.79 and 0.94 after ``model.eval()``; training identical (final
loss 0.002 both). Model seed shifted by 1000: 0.38 against 0.83 exact.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._caption_collages import (Captioner, Encoder, captioned,
                                                    index_batches, masked_loss, scores)

TITLE = "[Image Captioning] Training problem"
LINK = "https://github.com/yunjey/pytorch-tutorial/issues/12"
EXPECTED = ("SAMPLED_IN_TRAIN_MODE",)
STEPS = 300
BATCH = 64
TRAIN, HELD_OUT = 2000, 200
LR = 1e-2


class NormalisedEncoder(Encoder):
    """The patch encoder with batch normalisation after its first convolution."""

    def __init__(self, features=32):
        super().__init__(features)
        self.norm = nn.BatchNorm2d(64)

    def forward(self, images):
        h = F.relu(self.mix(F.relu(self.norm(self.patches(images)))))
        return h.flatten(2).transpose(1, 2) + self.where


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, captions, _ = captioned(TRAIN, seed=0)
    model = Captioner()
    model.encoder = NormalisedEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            caption = captions[index]
            optimizer.zero_grad()
            loss = masked_loss(model(images[index], caption[:, :-1]), caption[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    if fixed:
        model.eval()                 # BUG (fixed=False): still in training mode
    held_images, held_captions, _ = captioned(HELD_OUT, held_out=True, seed=0)
    generated = torch.cat([model.caption(image[None]) for image in held_images])
    mon.held_out_exact, mon.held_out_words = scores(generated, held_captions)
    mon.distinct_captions = len({tuple(row) for row in generated.tolist()})
    mon.final_loss = loss.item()
    return mon
