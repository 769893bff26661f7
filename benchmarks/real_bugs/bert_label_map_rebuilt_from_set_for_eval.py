"""A BERT news classifier's processor turns label names into ids with
``{name: i for i, name in enumerate(set(names))}``. While one run trains and evaluates, both
use the same map. But a later run that only evaluates the saved model (``do_train=False``)
builds the map again, and the iteration order of a ``set`` of strings changes from one
Python process to the next (string hashing is randomised per process): the saved classifier
now answers in the old ids while the evaluation reads them under new names. Training was
healthy; the held-out score of the evaluation-only run is near chance.

Reported: "[Bug Fix] Label map may change when you only eval." -
https://github.com/Socialbird-AILab/BERT-Classification-Tutorial/pull/6 ("after we trained
the model and only eval it again, the label map may change because set in python is not
ordered"). Here a tiny ``BertForSequenceClassification`` (``BertConfig`` at random init, 2
layers of width 32) on synthetic 10-topic snippets whose labels are topic names; the two
runs' set orders are those of two Python processes (``PYTHONHASHSEED`` 1 for the training
run, 2 for the evaluation-only run, read from a subprocess so the case is deterministic).
Fix: a fixed order, ``sorted(set(names))``, in both runs.

Measured (held-out accuracy of the evaluation-only run, 400 snippets, 200 steps): 0.00
with the bug, 1.00 fixed; seeds + 1000: 0.00 vs 1.00.
"""
import os
import subprocess
import sys

import torch

import nndebug as nd
from benchmarks.real_bugs._beginner_bert_finetune import (SCORES, accuracy, minibatches,
                                                          split, tiny_bert)

TITLE = "[Bug Fix] Label map may change when you only eval."
LINK = "https://github.com/Socialbird-AILab/BERT-Classification-Tutorial/pull/6"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 200
TOPICS = 10
NAMES = ["business", "sports", "politics", "science", "health", "travel", "music",
         "movies", "weather", "education"]
_ORDERS = {}


def set_order(names, hash_seed):
    """The order ``list(set(names))`` has in a Python process started with this
    PYTHONHASHSEED (what the processor's label list is in that run)."""
    key = (tuple(names), hash_seed)
    if key not in _ORDERS:
        env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
        code = "import sys; print('\\n'.join(set(sys.argv[1:])))"
        out = subprocess.run([sys.executable, "-c", code, *names], env=env, check=True,
                             capture_output=True, text=True).stdout
        _ORDERS[key] = out.split()
    return _ORDERS[key]


def label_map(names, fixed, hash_seed):
    order = sorted(set(names)) if fixed else set_order(sorted(set(names)), hash_seed)
    return {name: i for i, name in enumerate(order)}   # BUG (unfixed): a set's order


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, mask, topic), (test_ids, test_mask, test_topic) = split(topics=TOPICS)
    train_names = [NAMES[int(t)] for t in topic]
    test_names = [NAMES[int(t)] for t in test_topic]
    # the training run (one process)
    train_map = label_map(train_names, fixed, hash_seed=1)
    labels = torch.tensor([train_map[n] for n in train_names])
    model = tiny_bert(num_labels=TOPICS)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            out = model(input_ids=ids[rows], attention_mask=mask[rows], labels=labels[rows])
            optimizer.zero_grad()
            out.loss.backward()
            optimizer.step()
            mon.step(out.loss)
    # a later evaluation-only run (another process) builds its label map again
    eval_map = label_map(test_names, fixed, hash_seed=2)
    test_labels = torch.tensor([eval_map[n] for n in test_names])
    mon.held_out_accuracy = accuracy(model, test_ids, test_mask, test_labels)
    SCORES[__name__.rsplit(".", 1)[-1]] = mon.held_out_accuracy
    return mon
