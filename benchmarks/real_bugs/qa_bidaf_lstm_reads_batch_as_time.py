"""A BiDAF-style span reader whose LSTM was built without ``batch_first=True`` while the
code feeds it (batch, words, features) tensors: PyTorch reads the first axis as time, so
the "sequence" the LSTM runs along is the BATCH - question 1's word 5, question 2's word
5, ... - and the passage's words are treated as independent sequences. No word's state
ever sees the words around it, only the same position in the other questions, so the
reader cannot find where an answer ends (nor tell the answer's first word from its
neighbours by their context). Shapes agree everywhere, the loss falls, exact match stays
low.

Reported: "Very small gradients causing no weight update from your model" -
https://github.com/jojonki/BiDAF/issues/1 (the author of a PyTorch BiDAF: "I noticed my
LSTMs assume `batch_first=True`. But I didn't set it!"; after the fix the training exact
match climbed epoch by epoch, "this was really critical"). Here the batch-289 questions
(benchmarks/real_bugs/_qa_offsets289.py, rows ``[CLS] key [SEP] passage [SEP]``), a reader
of embeddings, the question vector beside each word, one bidirectional LSTM and a
start/end head, 2,000 questions, Adam 3e-3, 300 steps of 32.

Fix: ``nn.LSTM(..., batch_first=True)``.

Measured (exact match on 500 held-out questions, best span of at most 4 tokens over the
passage): 0.29 with the bug, 1.00 fixed; seeds + 1000: 0.26 vs 1.00.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._qa_offsets289 import LstmReader, bert_rows
from benchmarks.real_bugs._qa_spans import best_span

TITLE = "Very small gradients causing no weight update from your model"
LINK = "https://github.com/jojonki/BiDAF/issues/1"
EXPECTED = ("BATCH_MIXING", "INPUT_LAYOUT_SCRAMBLED")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens, question, starts, ends, _, _ = bert_rows(rng, 2000)
    h_tokens, h_question, h_starts, h_ends, h_passage, _ = bert_rows(rng, 500)
    model = LstmReader(batch_first=fixed)      # BUG: the default batch_first=False
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(tokens), steps, 32, seed=0):
            start_logits, end_logits = model(tokens[index], question[index])
            loss = (F.cross_entropy(start_logits, starts[index])
                    + F.cross_entropy(end_logits, ends[index])) / 2
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        s, e = [], []
        for chunk in range(0, len(h_tokens), 32):      # evaluated in batches of 32 too
            rows = slice(chunk, chunk + 32)
            cs, ce, _ = best_span(*model(h_tokens[rows], h_question[rows]), h_passage[rows])
            s.append(cs)
            e.append(ce)
    s, e = torch.cat(s), torch.cat(e)
    mon.held_out_exact_match = ((s == h_starts) & (e == h_ends)).float().mean().item()
    return mon
