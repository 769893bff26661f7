"""An extractive question-answering head whose end logits are its start logits: the head
computes a start and an end score per token, but a wrong variable in the forward hands the
start column out twice. Both cross-entropies then pull on the same scores - one towards
the answer's first word, one towards its last - so the model spreads its probability
over the two, and the decoding (the best start + end score) can only find answers of one
word. The loss falls (the two targets coincide for one-word answers), nothing errors.

Reported: "fix logits calculation error in albert/fnet QA models" -
https://github.com/PaddlePaddle/PaddleNLP/pull/3539 (AlbertForQuestionAnswering and
FNetForQuestionAnswering computed ``end_logits`` from the variable holding the start
logits, so ``start_logits == end_logits`` for every token of any input; fixed by reading
the end column of the head's output). Here: the batch-131 reader
(benchmarks/real_bugs/_qa_spans.py: embedding, question features, BiGRU, a linear head of
two columns) on 2,000 synthetic questions whose answers are 1 to 4 words, Adam 3e-3, batch
32. Fix: the end logits from the head's second column.

Measured (exact match of the decoded span on 500 held-out questions): seed 0: 0.27 for the
bug against 1.00 for the fixed twin; seeds shifted by 1000: 0.27 against 1.00 (the bug's
hits are the one-word answers, about a quarter of them).

EXPECTED was written before scoring as END_LOGITS_ARE_START_LOGITS (a code for a future rule)
or NO_GRADIENT; the rule written from this case names the general cause, an output column
of the head no loss reads (OUTPUT_UNITS_WITHOUT_GRADIENT), and was added to EXPECTED then.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._qa_spans import (SpanReader, bert_layout, best_span,
                                            exact_match, span_loss)

TITLE = "fix logits calculation error in albert/fnet QA models"
LINK = "https://github.com/PaddlePaddle/PaddleNLP/pull/3539"
EXPECTED = ("END_LOGITS_ARE_START_LOGITS", "NO_GRADIENT", "OUTPUT_UNITS_WITHOUT_GRADIENT")
STEPS = 400


class Reader(SpanReader):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def forward(self, tokens, question):
        logits = self.encode(tokens, question)
        start_logits = logits[..., 0]
        end_logits = logits[..., 1] if self.fixed else logits[..., 0]   # BUG: start twice
        return start_logits, end_logits


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens, question, starts, ends, _ = bert_layout(rng, 2000)
    held_out = bert_layout(rng, 500)
    model = Reader(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(tokens), steps, 32, seed=0):
            start_logits, end_logits = model(tokens[index], question[index])
            loss = span_loss(start_logits, end_logits, starts[index], ends[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        h_tokens, h_question, h_starts, h_ends, h_passage = held_out
        s, e, _ = best_span(*model(h_tokens, h_question), h_passage)
    mon.held_out_exact_match = exact_match(s, e, h_starts, h_ends)
    return mon
