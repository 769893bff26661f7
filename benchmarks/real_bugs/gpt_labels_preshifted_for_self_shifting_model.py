"""A GPT-2-style LM head model that, like ``GPT2LMHeadModel``, shifts the labels it is
given inside its forward (logits[:, :-1] against labels[:, 1:]), trained from a loop that
shifts them as well while building the batch (inputs ``ids[:, :-1]``, labels
``ids[:, 1:]``): the two shifts add up, and every position is trained to predict the token
two ahead. The loss still falls (much of a copied answer is predictable two tokens ahead),
but the next-token predictions the model is used for are mostly wrong.

Reported: "Why GPT2 train loss and topK accuracy both decrease?" -
https://github.com/huggingface/transformers/issues/3523 (GPT2LMHeadModel trained from
scratch, the loss falling while top-3 accuracy sank; the author: "in GPT2LMHeadModel, the
label is shifted, however, I shift it again when preparing the batch"). Here the
``_clm291`` data right-padded with an attention mask, padding -100 in the labels, a 2-layer
TinyGPT with the loss inside its forward, AdamW 3e-3, batches of 32, 300 steps.

Fix: pass labels = input_ids (padding -100) and let the model shift them once.

Measured (held-out answer accuracy, next token from single unpadded examples; chance
1/19): 0.11 with the bug, 0.98 fixed; seeds + 1000: 0.16 vs 0.94.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clm291 import VOCAB, TinyGPT, answer_accuracy, data, pad
from benchmarks.real_bugs._common import index_batches

TITLE = "Why GPT2 train loss and topK accuracy both decrease?"
LINK = "https://github.com/huggingface/transformers/issues/3523"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300


class TinyGPTLMHead(TinyGPT):
    """Returns (loss, logits) when given labels, shifting them itself as GPT2LMHeadModel
    does; logits alone otherwise."""

    def forward(self, input_ids, attention_mask=None, position_ids=None, labels=None):
        logits = super().forward(input_ids, attention_mask, position_ids)
        if labels is None:
            return logits
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB),
                               labels[:, 1:].reshape(-1), ignore_index=-100)
        return loss, logits


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (rows, _), (held_rows, held_seps) = data()
    model = TinyGPTLMHead()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(rows), steps, batch_size=32, seed=0):
            ids, mask = pad([rows[i] for i in index.tolist()])
            targets = ids.masked_fill(mask == 0, -100)
            if fixed:
                input_ids, attention_mask, labels = ids, mask, targets
            else:           # BUG: shifted here, and shifted again inside the model
                input_ids, attention_mask, labels = ids[:, :-1], mask[:, :-1], targets[:, 1:]
            loss, _ = model(input_ids, attention_mask=attention_mask, labels=labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_answer_accuracy = answer_accuracy(model, held_rows, held_seps)
    return mon
