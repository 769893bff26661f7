"""A show-and-tell captioner whose sampling loop calls ``self.lstm(inputs)`` one word at a
time without passing the states back in: each call starts from zero states, so the image
feature fed at the first step is forgotten at once and every later word is predicted from
the previous word alone. Training (one teacher-forced call over the whole sequence) is
correct and its loss is fine; the captions the model writes are the same for every
picture.

Reported: "[Image Captioning] states in lstm()" -
https://github.com/yunjey/pytorch-tutorial/issues/22 (the reader asked why the sampler
passes ``states`` to ``self.lstm(inputs, states)`` when training does not, and whether
``hiddens, _ = self.lstm(inputs)`` would do; the author answered that the returned states
carry the sequence to the next step and that without them the LSTM "assigns zero states
internally and it performs wrong operation"). Here: the 2x2 digit-collage captions
(1 to 4 digit words between ``<start>`` and ``<end>``), a small patch encoder whose four
region vectors are flattened into one image feature (a linear layer and batch norm,
as the tutorial's encoder), an ``nn.LSTM`` decoder fed [image
feature, ``<start>``, words...] as in the tutorial, Adam, batch 64; held-out captions from
the sampler. Fix: ``hiddens, states = self.lstm(inputs, states)``.

Measured (400 steps, greedy captions of 500 held-out collages; exact captions / words
right): seed 0: 0.00 / 0.11 for the bug against 0.67 / 0.84 for the fixed twin; seeds +
1000: 0.00 / 0.10 against 0.67 / 0.83 (both twins train identically: same final loss).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._caption_collages import Encoder
from benchmarks.real_bugs._captioning import (MAX_WORDS, PAD, START, VOCAB, caption_scores,
                                              captioned, drawn_seed, shuffled_batches)

TITLE = "[Image Captioning] states in lstm()"
LINK = "https://github.com/yunjey/pytorch-tutorial/issues/22"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED",)
STEPS = 400
BATCH = 64
TRAIN, HELD_OUT = 2000, 500


class ShowAndTell(nn.Module):
    def __init__(self, embed=64, hidden=128, keep_states=True):
        super().__init__()
        self.encoder = Encoder()
        self.feature = nn.Sequential(nn.Linear(4 * 32, embed), nn.BatchNorm1d(embed))
        self.embed = nn.Embedding(VOCAB, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.linear = nn.Linear(hidden, VOCAB)
        self.keep_states = keep_states

    def image_feature(self, images):
        return self.feature(self.encoder(images).flatten(1))

    def forward(self, images, captions):
        """Teacher forcing: [feature, <start>, w1, ...] in one call; logits (N, T, VOCAB)
        from the <start> position on (position t predicts captions[:, t + 1])."""
        inputs = torch.cat([self.image_feature(images)[:, None], self.embed(captions)], 1)
        hiddens, _ = self.lstm(inputs)
        return self.linear(hiddens[:, 1:])

    @torch.no_grad()
    def sample(self, images, steps=MAX_WORDS + 1):
        inputs, states, words = self.image_feature(images)[:, None], None, []
        word = torch.full((len(images),), START, dtype=torch.long)
        for t in range(steps + 1):
            if self.keep_states:
                hiddens, states = self.lstm(inputs, states)
            else:
                hiddens, _ = self.lstm(inputs)        # BUG: zero states at every step
            if t > 0:
                word = self.linear(hiddens[:, 0]).argmax(-1)
                words.append(word)
            inputs = self.embed(word)[:, None]
        return torch.stack(words, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data_seed = drawn_seed()
    images, captions, _ = captioned(TRAIN, seed=data_seed)     # <start> words <end> pad
    model = ShowAndTell(keep_states=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in shuffled_batches(TRAIN, steps, BATCH):
            caption = captions[index]
            logits = model(images[index], caption[:, :-1])
            optimizer.zero_grad()
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), caption[:, 1:].reshape(-1),
                                   ignore_index=PAD)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held_images, held_captions, _ = captioned(HELD_OUT, held_out=True, seed=data_seed)
    mon.held_out_exact, mon.held_out_words = caption_scores(model.sample(held_images),
                                                            held_captions)
    mon.final_loss = loss.item()
    return mon
