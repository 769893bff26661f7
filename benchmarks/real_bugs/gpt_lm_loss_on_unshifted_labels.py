"""A small GPT-2-style model fine-tuned by hand on prompt -> answer texts, with ``labels``
set to the ``input_ids`` (padding -100) as the tutorials say, but the cross-entropy taken
between ``logits`` and ``labels`` position by position, without the shift the library
makes inside its model: the logits at position t are scored against token t itself, which
the causal model can read. It learns to copy its current input - the loss falls to almost
zero within a few dozen steps - and never learns to predict the next token.

Reported: "Fix Language Modeling Loss" - https://github.com/huggingface/transformers/pull/404
(GPT/GPT-2's LM loss "computed the cross-entropy without shifting the logits"; "Minimizing
the loss would previously destroy the language model within a few steps"; the fix scores
logits[..., :-1] against labels[..., 1:]). Here the ``_clm291`` data (a prompt of 2-6
symbols, a separator, the prompt again as the answer, end-of-text), right padding with an
attention mask, a 2-layer TinyGPT, AdamW 3e-3, batches of 32, 300 steps.

Fix: shift once - logits[:, :-1] against labels[:, 1:].

Measured (held-out answer accuracy, every answer token and the end-of-text predicted from
single unpadded examples; chance 1/19): 0.04 with the bug, 0.98 fixed; seeds + 1000: 0.04
vs 0.94.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clm291 import VOCAB, TinyGPT, answer_accuracy, data, pad
from benchmarks.real_bugs._common import index_batches

TITLE = "Fix Language Modeling Loss"
LINK = "https://github.com/huggingface/transformers/pull/404"
EXPECTED = ("TARGETS_IN_INPUTS", "LABELS_MISALIGNED")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (rows, _), (held_rows, held_seps) = data()
    model = TinyGPT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(rows), steps, batch_size=32, seed=0):
            input_ids, attention_mask = pad([rows[i] for i in index.tolist()])
            labels = input_ids.masked_fill(attention_mask == 0, -100)
            logits = model(input_ids, attention_mask=attention_mask)
            if fixed:
                logits, labels = logits[:, :-1], labels[:, 1:]
            # BUG (unfixed): logits at t scored against token t, the token the model reads
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1),
                                   ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_answer_accuracy = answer_accuracy(model, held_rows, held_seps)
    return mon
