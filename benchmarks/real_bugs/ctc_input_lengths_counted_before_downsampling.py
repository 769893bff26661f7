"""A CTC recogniser with a stride-2 convolution in front of its GRU, trained with the input
lengths of the features BEFORE the convolution: every utterance's output length is claimed
to be twice what it is. Inside the zero-padded batch the claim still fits (no error), so
CTC aligns each transcript over the utterance's output frames and then as many frames of
the padding after it, and greedy decoding reads the same span; the recogniser learns
alignments that run into the silence of the padding.

Reported: "Input_length of ctc_batch_cost should be the length of y_pred, but implenmented
with the length of x." - https://github.com/ShankHarinath/DeepSpeech2-Keras/issues/3 (the
DeepSpeech2 port passes CTC the length of the input spectrogram rather than the length of
the network's output sequence, which its convolutions shorten. Fix: the output lengths, the
input lengths divided by the convolution's stride). Here lines of one to three 8x8 digits
are read column by column (8 frames per digit) and zero-padded to 48 frames; a stride-2
convolution halves them to 24 before a bidirectional GRU (blank = 0); held-out lines come
from digits the training never shows, decoded greedily over the lengths training used.

**Measured** (400 steps): held-out line accuracy 0.47 for the bug against 0.89 for the fixed
twin at seed 0; 0.76 against 0.86 with every seed shifted by 1000.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ctc176 import (digits, greedy_decode, held_out_lines,
                                          line_accuracy, training_lines)

TITLE = ("Input_length of ctc_batch_cost should be the length of y_pred, but implenmented "
         "with the length of x.")
LINK = "https://github.com/ShankHarinath/DeepSpeech2-Keras/issues/3"
EXPECTED = ("CTC_INPUT_LENGTHS_EXCEED_OUTPUT",)
STEPS = 400
STRIDE = 2
SHAPE = dict(min_digits=1, max_digits=3, pad_frames=24)


class DownsamplingRecogniser(nn.Module):
    def __init__(self, features=8, channels=32, hidden=64, labels=11):
        super().__init__()
        self.conv = nn.Conv1d(features, channels, kernel_size=4, stride=STRIDE, padding=1)
        self.rnn = nn.GRU(channels, hidden, bidirectional=True)
        self.out = nn.Linear(2 * hidden, labels)

    def forward(self, frames):                                  # (T, B, features)
        h = torch.relu(self.conv(frames.permute(1, 2, 0)))      # (B, channels, T / 2)
        return self.out(self.rnn(h.permute(2, 0, 1))[0])        # (T / 2, B, labels)


def output_lengths(frame_lengths, fixed):
    # BUG (fixed=False): the lengths of the input features, not of the network's output
    return frame_lengths // STRIDE if fixed else frame_lengths


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    model = DownsamplingRecogniser()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps, **SHAPE):
            optimizer.zero_grad()
            log_probs = model(frames).log_softmax(dim=2)
            loss = ctc(log_probs, targets, output_lengths(frame_lengths, fixed),
                       target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y, **SHAPE)
    with torch.no_grad():
        decoded = greedy_decode(model(frames), output_lengths(frame_lengths, fixed))
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon
