"""GPT-2 has no pad token, so a beginner sets the pad token to the end-of-text token, pads
every example to a fixed ``max_length`` (32) and passes ``labels = input_ids``: the padded
positions stay in the labels instead of becoming -100. Most of each row is padding, so
most of the loss is "end-of-text follows end-of-text", which is learned at once; the mean
over all those easy positions shrinks what the answer tokens contribute, and the model
also learns to put end-of-text after end-of-text and near the end of every short answer.
The loss falls smoothly and low; the answers are learned far worse.

Reported: "Loss mask for fine-tuning GPT2LMHeadModel model" -
https://github.com/huggingface/transformers/issues/7135 ("If we use padding for
short-sentence fine-tune data ... exclude the loss for padding tokens?"; the answer: set
the pad token to the end-of-text token and the padded labels to -100, the ignore index of
CrossEntropyLoss). Here the ``_clm291`` data padded to 32 with the end-of-text id, an
attention mask passed, a 2-layer TinyGPT, AdamW 3e-3, batches of 32, 300 steps, the loss
shifted once.

Fix: labels = input_ids.masked_fill(attention_mask == 0, -100) (the real end-of-text at
each example's end stays a target: the mask, not the id, marks the padding).

Measured (held-out answer accuracy, single unpadded examples; chance 1/19): 0.28 with the
bug, 0.97 fixed; seeds + 1000: 0.81 vs 0.93.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clm291 import (EOS, MAX_POSITIONS, VOCAB, TinyGPT,
                                          answer_accuracy, data, pad)
from benchmarks.real_bugs._common import index_batches

TITLE = "Loss mask for fine-tuning GPT2LMHeadModel model"
LINK = "https://github.com/huggingface/transformers/issues/7135"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 300
PAD = EOS                          # tokenizer.pad_token = tokenizer.eos_token


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (rows, _), (held_rows, held_seps) = data()
    model = TinyGPT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(rows), steps, batch_size=32, seed=0):
            input_ids, attention_mask = pad([rows[i] for i in index.tolist()], pad_id=PAD,
                                            length=MAX_POSITIONS)
            labels = input_ids.clone()        # BUG (unfixed): the padding stays a target
            if fixed:
                labels = labels.masked_fill(attention_mask == 0, -100)
            logits = model(input_ids, attention_mask=attention_mask)
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB),
                                   labels[:, 1:].reshape(-1), ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_answer_accuracy = answer_accuracy(model, held_rows, held_seps)
    return mon
