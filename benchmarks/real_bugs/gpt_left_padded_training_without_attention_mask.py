"""A small GPT-2-style model fine-tuned on batches padded on the LEFT (pad token = the
end-of-text token, padding -100 in the labels, position ids counted from each example's
first real token), but called without the ``attention_mask``: the causal mask alone only
hides later positions, so every real token also attends to the run of end-of-text pads
before it, and how long that run is depends on the longest example in the batch. The
model learns answers that lean on the padding it saw; run on a single unpadded prompt,
as at inference, it gets many of them wrong. The loss falls as usual.

Reported: "Question: about left padding" - https://github.com/Lightning-AI/lit-llama/issues/77
("if the model is padded to the left and its a casual language model does that mean that
padding tokens will receive attention from the rest of the sequence?"; the maintainer
agreed, the labels were masked but the attention was not, and a mask added to the scores
was proposed for fine-tuning). Here the ``_clm291`` data, a 2-layer TinyGPT, AdamW 3e-3,
batches of 32, 300 steps.

Fix: model(input_ids, attention_mask=attention_mask, position_ids=...): padded keys get
no attention.

Measured (held-out answer accuracy, single unpadded examples; chance 1/19): 0.77 with the
bug, 0.97 fixed; seeds + 1000: 0.78 vs 0.96.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clm291 import VOCAB, TinyGPT, answer_accuracy, data, pad
from benchmarks.real_bugs._common import index_batches

TITLE = "Question: about left padding"
LINK = "https://github.com/Lightning-AI/lit-llama/issues/77"
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
            position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
            # BUG (unfixed): no attention_mask - real tokens attend to the left padding
            logits = model(input_ids, attention_mask=attention_mask if fixed else None,
                           position_ids=position_ids)
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB),
                                   labels[:, 1:].reshape(-1), ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_answer_accuracy = answer_accuracy(model, held_rows, held_seps)
    return mon
