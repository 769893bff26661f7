"""A "next day" forecaster whose label is taken one day too late: the window holds days
d-30..d-1 and the label is day d+1, so the model learns to forecast two days past its last
observation while everything downstream uses it as a one-day-ahead forecast (day d). Its
forecasts are systematically a day early.

Reported: "Investigate issues/bugs in examples" -
https://github.com/cognizant-ai-labs/covid-xprize/issues/127 ("LSTM is predicting for two
days, not one? (off-by-one issue)"; a competitor's report on the sample code: X_cases =
all_case_data[d-nb_lookback_days:d], "Should this y_sample = all_case_data[d + 1] be
y_sample = all_case_data[d] instead?"; fixed by PR #130 "Fix bug in label creation code -
We are predicting T + 2 instead of T + 1"). Here a noisy two-cycle daily series, windows of
30 days, an LSTM(1, 32) forecaster, Adam for 300 steps of 32 windows, judged on the next day
after each held-out window.
Fix: y = series[d], the day right after the window.
Harm (held-out next-day MSE, standardised units): 0.1436 vs 0.0757; seeds + 1000:
0.1901 vs 0.0647.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_lstm_forecast import (TRAIN_END, Forecaster, mse, picks,
                                                          series, windows)

TITLE = "Investigate issues/bugs in examples"
LINK = "https://github.com/cognizant-ai-labs/covid-xprize/issues/127"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
LOOKBACK = 30


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    values = series(seed=0)
    ahead = 1 if fixed else 2                         # BUG when not fixed: y = day d + 1
    x, y = windows(values, 0, TRAIN_END, LOOKBACK, ahead=ahead)
    x_test, y_test = windows(values, TRAIN_END, len(values), LOOKBACK, ahead=1)
    model = Forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = picks(len(x))
            optimizer.zero_grad()
            loss = loss_fn(model(x[pick]), y[pick])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_mse = mse(model(x_test), y_test)
    return mon
