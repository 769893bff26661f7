"""A BERT encoder with a new, randomly initialised reasoning head on top (two Linear layers
over the pooled token states) is fine-tuned with ONE optimizer at BERT's fine-tuning rate,
1e-5, for every parameter. That rate suits the pretrained encoder, but the new head starts
from nothing and moves by about 1e-5 per step: after the whole run it has barely left its
initialisation, the loss creeps down from ln(C), and the classifier stays near chance.

Reported: "Correct optimizer for BERT + LSR" - https://github.com/nanguoshun/LSR/pull/33
("The learning rates of LSR and BERT parts of the network need to be different -- they are
now."). Here a tiny ``BertModel`` (2 layers of width 32, "pretrained" for 150 AdamW steps on a
separate draw of the snippets, ``_encoder_head_rates288.pretrained_encoder``) with a new,
randomly initialised hand-written head (masked mean of the token states -> Linear -> ReLU -> Linear) on
synthetic 10-topic snippets (``_beginner_bert_finetune``), AdamW, minibatches of 32.
Fix: two parameter groups, the encoder at 1e-5 and the new head at 1e-3.

Measured (held-out accuracy, 400 snippets, 200 steps): 0.375 with the bug, 1.00 fixed;
seeds + 1000: 0.07 vs 1.00. Corrected after scoring (a reproduction mistake): the new head's
initial weights depended on whether ``_encoder_head_rates288.pretrained_encoder`` had its
weights cached already in the process (a first call drew more random numbers), so the
verdict changed with the cases run before it - missed when scored alone (0.157 vs 1.00,
0.35 vs 1.00), LR_TOO_LOW in CI after batch 288's other case; the helper now leaves the same
random state either way, and the verdict (LR_TOO_LOW, at both seeds) no longer moves.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_bert_finetune import minibatches, split
from benchmarks.real_bugs._encoder_head_rates288 import (SCORES, accuracy, masked_mean,
                                                         pretrained_encoder)

TITLE = "Correct optimizer for BERT + LSR"
LINK = "https://github.com/nanguoshun/LSR/pull/33"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 200
TOPICS = 10
BERT_LR, HEAD_LR = 1e-5, 1e-3


class EncoderWithReasoner(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.bert = pretrained_encoder()
        self.reasoner = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, ids, mask):
        states = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
        return self.reasoner(masked_mean(states, mask))


def run(fixed=False, steps=STEPS, **watch):
    model = EncoderWithReasoner(TOPICS)     # the encoder "pretrained" (seed 1), a new head
    torch.manual_seed(0)
    (ids, mask, labels), (test_ids, test_mask, test_labels) = split(topics=TOPICS)
    if fixed:
        optimizer = torch.optim.AdamW([
            {"params": model.bert.parameters(), "lr": BERT_LR},
            {"params": model.reasoner.parameters(), "lr": HEAD_LR}])
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=BERT_LR)  # BUG: head at BERT's rate
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in minibatches(len(ids), steps):
            loss = loss_fn(model(ids[rows], mask[rows]), labels[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, test_ids, test_mask, test_labels)
    SCORES[__name__.rsplit(".", 1)[-1]] = mon.held_out_accuracy
    return mon
