"""A CTC recogniser whose network ends in a softmax, trained with a CTC loss that applies its
own softmax to the activations it is given (warp-ctc's binding does; here written as
``log_softmax`` inside the loss). The probabilities are softmaxed a second time: every
"logit" CTC sees lies in [0, 1], so no frame can put more than e / (e + C - 1) on any label,
the loss is stuck far above zero, and the gradients reaching the network are squashed by the
first softmax. Nothing crashes, the loss still falls a little; the recogniser learns slowly
and badly.

Reported: "CTC loss doubt" - https://github.com/SeanNaren/deepspeech.pytorch/issues/194 (the
maintainer: the CTC loss computes the softmax internally, which is why deepspeech.pytorch's
softmax only runs at inference and never in training; the reporter had been misled by the
binding's test, which feeds the CTC the output of a softmax. Fix: give the CTC the raw
activations, softmax only when decoding). Here a bidirectional GRU reads three 8x8 digits
side by side, column by column (24 frames of 8 pixels), and CTC (blank = 0) trains it to
spell the three labels; held-out lines come from digits the training never shows, decoded
greedily.

**Measured** (200 steps): held-out line accuracy 0.00 for the bug against 0.75 for the fixed
twin at seed 0; 0.00 against 0.76 with every seed shifted by 1000.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._ctc176 import (FrameRecogniser, digits, greedy_decode,
                                          held_out_lines, line_accuracy, training_lines)

TITLE = "CTC loss doubt"
LINK = "https://github.com/SeanNaren/deepspeech.pytorch/issues/194"
EXPECTED = ("CTC_NOT_LOG_PROBABILITIES", "DOUBLE_SOFTMAX")
STEPS = 200


class SoftmaxRecogniser(FrameRecogniser):
    def __init__(self, softmax_in_training):
        super().__init__()
        self.softmax_in_training = softmax_in_training

    def forward(self, frames):
        scores = super().forward(frames)
        if self.softmax_in_training or not self.training:
            return scores.softmax(dim=2)
        return scores


def ctc_with_internal_softmax(activations, targets, input_lengths, target_lengths):
    """The loss as warp-ctc computes it: softmax over the labels of what it is given."""
    return F.ctc_loss(activations.log_softmax(dim=2), targets, input_lengths, target_lengths,
                      blank=0)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    # BUG (fixed=False): the network's softmax also runs in training, before the loss's own
    model = SoftmaxRecogniser(softmax_in_training=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps):
            optimizer.zero_grad()
            loss = ctc_with_internal_softmax(model(frames), targets, frame_lengths,
                                             target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y)
    with torch.no_grad():
        decoded = greedy_decode(model(frames), frame_lengths)
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon
