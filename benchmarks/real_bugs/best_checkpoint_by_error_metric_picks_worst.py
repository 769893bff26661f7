"""A digits classifier fine-tuned with the Trainer's ``load_best_model_at_end=True`` and
``metric_for_best_model`` naming an error the user's ``compute_metrics`` returns (lower is
better). ``greater_is_better`` was left unset, and the Trainer then defaults it to True for
every metric whose name does not end in "loss": it keeps as "best" the checkpoint with the
HIGHEST error - the first evaluation, hardly trained - and loads it back over the trained
weights when training ends. Training itself is healthy, the logs show the error falling at
every evaluation, and the model the script goes on to use is the worst one it saw.

Reported: "Set greater_is_better to False if metric_for_best_model ends with \"loss\"" -
https://github.com/huggingface/transformers/pull/31142 (the author evaluated on several
datasets, chose a per-dataset loss as ``metric_for_best_model``, and "after 7h of training I
realized that the worst model was saved": ``greater_is_better`` had defaulted to True
because the name was not exactly "loss"/"eval_loss"; the PR extends the default to names
ending in "loss", and any other lower-is-better metric still needs
``greater_is_better=False``). Here: an MLP on the 8x8 digits, SGD 0.05 through the Trainer,
an evaluation and a checkpoint every 40 steps, ``compute_metrics`` returning the error rate.
Fix: ``greater_is_better=False``.

Measured (held-out accuracy of the model after ``train()``, 297 digits never trained or
evaluated on): seed 0, 0.41 for the bug against 0.92 for the fixed twin; seeds shifted by
1000, 0.40 against 0.90 (the validation error at the ten evaluations falls from 0.60 to
0.08 at seed 0; the bug loads the step-40 checkpoint).
"""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._hft145 import accuracy, rows_of, train

TITLE = 'Set greater_is_better to False if metric_for_best_model ends with "loss"'
LINK = "https://github.com/huggingface/transformers/pull/31142"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
STEPS = 400
EVERY = 40


class DigitNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                       torch.nn.Linear(64, 10))

    def forward(self, x, labels=None):
        logits = self.net(x)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.cross_entropy(logits, labels)
        return out


def error_rate(prediction):
    return {"error_rate": float(np.mean(prediction.predictions.argmax(-1)
                                        != prediction.label_ids))}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    train_at, val_at, test_at = order[:1200], order[1200:1500], order[1500:]
    model = DigitNet()
    arguments = dict(eval_strategy="steps", eval_steps=EVERY, save_strategy="steps",
                     save_steps=EVERY, load_best_model_at_end=True,
                     metric_for_best_model="error_rate", optim="sgd", learning_rate=0.05,
                     per_device_eval_batch_size=300)
    if fixed:
        arguments["greater_is_better"] = False      # an error: lower is better
    trainer, callback = train(model, steps, rows_of(x=x[train_at], labels=y[train_at]), watch,
                              eval_rows=rows_of(x=x[val_at], labels=y[val_at]),
                              compute_metrics=error_rate, arguments=arguments)
    model.eval()
    with torch.no_grad():
        mon = callback.monitor
        mon.held_out_accuracy = accuracy(model(x[test_at])["logits"], y[test_at])
    return mon
