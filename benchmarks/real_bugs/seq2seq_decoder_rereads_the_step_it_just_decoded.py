"""A GRU encoder-decoder forecaster whose decoder loop, after decoding step t, builds the next
input from ``inputs[:, t]`` - the row it has just read - instead of ``inputs[:, t + 1]``. Step
0 and step 1 both read row 0, and every later step reads the covariate of the step before
(and, when teacher forced, the target of two steps back). The covariate is a known driver
that moves the target at its own step, so each step is predicted from last step's driver:
the loss still falls (the stale driver is 0.8-correlated with the right one), the model
learns a blurred forecast, and nothing fails.

Reported: "loop problem in DecoderBase.forward" -
https://github.com/maxbrenner-ai/seq2seq-time-series-forecasting-fully-recurrent/issues/2
(the decoder loop of a seq2seq time-series tutorial sets ``curr_input = inputs[:, t:t+1, :]``
after step t: "in this loop, curr_input in t = 0 is excuted twice"). Here a seasonal series
driven by an AR(1) covariate known ahead (``_ar286``), 24 past steps encoded, 12 decoded one
by one with teacher forcing on half the steps, Adam, 300 steps of 32 windows; the held-out
forecast runs free (its own predictions fed back) from 365 origins after the training span.

Fix: the next decoder input is the NEXT row, ``inputs[:, t + 1]``, with the prediction of
step t written into its target column when not teacher forced.

Measured (held-out 12-step free-running RMSE, standardised units): 0.64 with the bug, 0.28
fixed; seeds + 1000: 0.60 vs 0.29.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ar286 import (HORIZON, TRAIN_END, Seq2Seq, driven_series,
                                         encoder_decoder_windows, held_out_rmse)

TITLE = "loop problem in DecoderBase.forward"
LINK = ("https://github.com/maxbrenner-ai/seq2seq-time-series-forecasting-fully-recurrent/"
        "issues/2")
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
TEACHER_FORCE_PROB = 0.5


def decode(model, past, inputs, fixed, teacher_force_prob=None):
    """(B, HORIZON) forecasts; ``inputs`` (B, HORIZON, 2) are the decoder rows."""
    h = model.encoder(past)[0]
    outputs = []
    curr_input = inputs[:, 0]
    for t in range(HORIZON):
        out, h = model.decoder(curr_input, h)
        outputs.append(out)
        if t + 1 == HORIZON:
            break
        teacher_force = (teacher_force_prob is not None
                         and float(torch.rand(())) < teacher_force_prob)
        if fixed:
            curr_input = inputs[:, t + 1].clone()
        else:
            curr_input = inputs[:, t].clone()       # BUG: the row step t has just read
        if not teacher_force:
            curr_input[:, 0] = out.detach()
    return torch.stack(outputs, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = driven_series(0)
    past, rows, future = encoder_decoder_windows(data, 0, TRAIN_END)
    model = Seq2Seq()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(past), (32,))
            optimizer.zero_grad()
            predicted = decode(model, past[pick], rows[pick], fixed, TEACHER_FORCE_PROB)
            loss = F.mse_loss(predicted, future[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_rmse = held_out_rmse(lambda p, r: decode(model, p, r, fixed), data)
    return mon
