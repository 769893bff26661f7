"""A dialogue classifier built on a decoder-only sequence-classification head, with the
tokenizer switched to ``padding_side = "left"`` (the side used for generation). The head
reads each row at ``(ids != pad_id).sum(-1) - 1``, the last real token only when the
padding is on the right: with left padding that index lands inside the row, so every row
shorter than the batch's longest is classified from a state that never saw its last turns
(or only padding). The label sits in the user's last turn, which only the batch's
longest rows are read after: the run completes quietly and learns little beyond chance.

Reported: "Correct code errors" - https://github.com/facebookresearch/simmc2/pull/52
(the SIMMC 2.0 disambiguation model on GPT2ForSequenceClassification: "Delete
`tokenizer.padding_side = \"left\"`. It seems that after removing this line, the accuracy
could be improved from 72% to 92%"). Here shop dialogues of 1-3 user turns ([USER]/[SYS]
tokens, 3-8 words a turn), label: does the last user turn hold an ambiguous-reference
word; EOS as the padding id, a causal GRU standing in for GPT-2 with the same last-token
head, Adam, 200 steps of 32 dialogues padded to the batch's longest.

Fix: the tokenizer's default right padding (the PR's other change, left truncation of
over-long contexts, does not arise: no dialogue here is truncated).

Measured (held-out accuracy, 1000 dialogues, batches of 32): 0.54 with the bug, 1.00
fixed; seeds + 1000: 0.54 vs 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._collate315 import CausalClassifier, chats, pad_batch, rng

TITLE = "Correct code errors"
LINK = "https://github.com/facebookresearch/simmc2/pull/52"
EXPECTED = ("OUTPUT_READS_FEW_TOKENS", "PADDING_LEAK")
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    r = rng(0)
    train, held = chats(3000, r), chats(1000, r)
    side = "right" if fixed else "left"       # BUG (unfixed): padding_side = "left"
    model = CausalClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            batch = [train[i] for i in r.integers(len(train), size=32)]
            ids, mask = pad_batch([b[0] for b in batch], side)
            labels = torch.tensor([b[1] for b in batch])
            loss = F.cross_entropy(model(ids, mask), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(held), 32):
            batch = held[start:start + 32]
            ids, mask = pad_batch([b[0] for b in batch], side)
            labels = torch.tensor([b[1] for b in batch])
            correct += (model(ids, mask).argmax(-1) == labels).sum().item()
    mon.held_out_accuracy = correct / len(held)
    return mon
