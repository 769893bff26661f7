"""Class names are turned into ids with ``list(set(names))``. Python's string hashing is
salted per process, so the set's order, and with it every label id, changes each time the
script starts: a run resumed from a checkpoint in a new process trains the old weights
against labels that now mean other classes.

Reported: "Change encode_onehot function to enable static class label encoding" -
https://github.com/diegoantognini/pyGAT/pull/51 ("labels generated from function load_data
will be different if I restart the code. And the calculated the loss and acc will be wrong
if using saved models"; the fix sorts the classes before numbering them). Here a
bag-of-words topic classifier trained for half its steps, checkpointed, and resumed: the
resumed process rebuilds the mapping from a set whose order differs (played by a fixed
permutation, since one process cannot change its own hash salt). Fix: number the classes in
``sorted(set(names))`` order.

Why watch misses it: the ids are permuted once, mid-run; the loss jumps and recovers as it
does when a healthy run meets new data, and the class names never reach the monitor, so no
recorded number says the same id now means another class.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs.vocabulary_lowercased_inputs_not import BagOfWords, UNK, sentences

TITLE = "Change encode_onehot function to enable static class label encoding"
LINK = "https://github.com/diegoantognini/pyGAT/pull/51"
EXPECTED = ("LABELS_REMAPPED_MID_RUN",)
STEPS = 240
NAMES = ("comedy", "history", "romance", "tragedy")
# the order list(set(NAMES)) came out in each process (it follows the per-process hash salt)
FIRST_PROCESS = ("romance", "comedy", "tragedy", "history")
RESUMED_PROCESS = ("history", "tragedy", "comedy", "romance")


def label_ids(names, process_order, fixed):
    order = sorted(set(names)) if fixed else list(process_order)
    mapping = {name: i for i, name in enumerate(order)}
    return torch.tensor([mapping[n] for n in names])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, topics = sentences(2000, rng, title_cased=0.0)
    vocabulary = {w: i + 2 for i, w in enumerate(sorted({w for t in texts for w in t}))}
    ids = torch.tensor([[vocabulary.get(w, UNK) for w in text] for text in texts])
    names = [NAMES[t] for t in topics.tolist()]
    model = BagOfWords(len(vocabulary) + 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        labels = label_ids(names, FIRST_PROCESS, fixed)
        for step in range(steps):
            if step == steps // 2:
                # checkpoint and resume in a new process: the labels are numbered again
                # BUG (unfixed): in that process's set order
                labels = label_ids(names, RESUMED_PROCESS, fixed)
            index = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[index]), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
