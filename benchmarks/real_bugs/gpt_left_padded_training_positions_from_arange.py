"""A small GPT-2-style model (learned absolute position embeddings) fine-tuned on batches
padded on the LEFT, as batched generation is told to, with the attention mask passed but no
``position_ids``: the model counts positions 0, 1, 2, ... along the padded row, so each
example's first real token sits at position 3, 7 or 10 depending on the longest example in
its batch. Training sees every example at a shifting offset; a single prompt run on its
own starts at position 0, where the model was hardly ever trained to start. The loss falls;
held-out answers, run unpadded, are mostly wrong.

Reported: "position_ids with left padding" - https://github.com/tloen/alpaca-lora/issues/315
("position_ids is from 0 to seq_length. But if the padding side is left, text position
doesn't start from 0. Will it cause performance drop?"; a reply: the position_ids are
incorrect during training with left padding, build them per example in the collator).
Here the ``_clm291`` data left-padded with the end-of-text id, padding -100 in the labels,
a 2-layer TinyGPT, AdamW 3e-3, batches of 32, 300 steps.

Fix: position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0), so every example's
first real token is position 0.

Measured (held-out answer accuracy, single unpadded examples; chance 1/19): 0.44 with the
bug, 0.97 fixed; seeds + 1000: 0.48 vs 0.96.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clm291 import VOCAB, TinyGPT, answer_accuracy, data, pad
from benchmarks.real_bugs._common import index_batches

TITLE = "position_ids with left padding"
LINK = "https://github.com/tloen/alpaca-lora/issues/315"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (rows, _), (held_rows, held_seps) = data()
    model = TinyGPT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(rows), steps, batch_size=32, seed=0):
            input_ids, attention_mask = pad([rows[i] for i in index.tolist()], side="left")
            labels = input_ids.masked_fill(attention_mask == 0, -100)
            position_ids = None               # BUG (unfixed): arange over the padded row
            if fixed:
                position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
            logits = model(input_ids, attention_mask=attention_mask,
                           position_ids=position_ids)
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB),
                                   labels[:, 1:].reshape(-1), ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_answer_accuracy = answer_accuracy(model, held_rows, held_seps)
    return mon
