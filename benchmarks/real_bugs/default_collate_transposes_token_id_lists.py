"""A text Dataset whose ``__getitem__`` returns the padded token ids as a plain Python
list. PyTorch's default collate treats a list as a sequence of fields and collates it
position by position, so the batch holds a list of 32 tensors, one per POSITION, each
holding that position of every text; ``torch.stack`` of that list is (positions, texts),
not (texts, positions). With the padding length equal to the batch size (32 and 32) the
shapes fit, nothing fails, and each "text" the model reads is one position of 32
different texts, against the label of one of them.

Reported: "default_collate: if elem in batch is list, the whole batch would be
transpose?" - https://github.com/pytorch/pytorch/issues/50272 (a Dataset returning
``.tolist()`` rows in a dict: the collated field comes out as per-position tensors; "Why
transpose batch while elem is sequence type?"). Here 4-topic texts of 8-32 ids padded to
32, a mean-of-embeddings classifier, Adam, 300 steps of 32 texts collated by
``default_collate``; the held-out texts go through the same Dataset and collate.

Fix: return the ids as a tensor (``torch.tensor(ids)``) so the collate stacks whole
texts, (texts, positions).

Measured (held-out accuracy, 992 texts): 0.26 with the bug, 1.00 fixed; seeds + 1000:
0.26 vs 1.00.
"""
import torch
from torch.nn import functional as F
from torch.utils.data import Dataset, default_collate

import nndebug as nd
from benchmarks.real_bugs._collate315 import MeanOfWords, rng, topic_texts

TITLE = "default_collate: if elem in batch is list, the whole batch would be transpose?"
LINK = "https://github.com/pytorch/pytorch/issues/50272"
EXPECTED = ("BATCH_MIXING", "INPUT_LAYOUT_SCRAMBLED")
STEPS = 300
BATCH = 32                      # the same as the padded length


class Texts(Dataset):
    def __init__(self, texts, labels, as_tensor):
        self.texts, self.labels, self.as_tensor = texts, labels, as_tensor

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        ids = torch.tensor(self.texts[i]) if self.as_tensor else self.texts[i]
        return {"input_ids": ids, "label": self.labels[i]}


def collated(dataset, index):
    batch = default_collate([dataset[i] for i in index])
    ids = batch["input_ids"]
    if isinstance(ids, list):   # BUG: a list of per-position tensors
        ids = torch.stack(ids)  # (positions, texts)
    return ids, batch["label"]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    r = rng(0)
    texts, labels = topic_texts(4000, r)
    train = Texts(texts[:3008], labels[:3008], as_tensor=fixed)
    held = Texts(texts[3008:], labels[3008:], as_tensor=fixed)
    model = MeanOfWords()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            ids, y = collated(train, r.integers(len(train), size=BATCH).tolist())
            loss = F.cross_entropy(model(ids), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(held), BATCH):
            ids, y = collated(held, range(start, start + BATCH))
            correct += (model(ids).argmax(-1) == y).sum().item()
    mon.held_out_accuracy = correct / len(held)
    return mon
