"""A GPT written from scratch embeds the tokens and feeds them straight into the causal
attention blocks: no position embedding is added. Attention is blind to order beyond what the
causal mask lets it count, so the model cannot tell how far back a character was and learns
a much weaker next-character model.

Reported: "Added learned positional embeddings to transformer" -
https://github.com/akshat0123/GPT-1/pull/6 (a from-scratch GPT-1 implementation whose
transformer had no positional embeddings; the pull request adds the learned ones). Here a
2-block, 64-wide GPT on 32-character windows of the sonnets, Adam at 3e-3. Fix: add a learned
position embedding to the token embedding.

Measured (held-out next-character cross-entropy in nats, 256 windows of the last 10% of
the text, after STEPS steps): bug 2.580 vs fixed 2.308; seeds + 1000:
2.566 vs 2.302.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import text_windows
from benchmarks.real_bugs._gpt import GPT, LENGTH, held_out_loss, lm_loss, split_characters

TITLE = "Added learned positional embeddings to transformer"
LINK = "https://github.com/akshat0123/GPT-1/pull/6"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = split_characters()
    model = GPT(vocab, positions=fixed)        # BUG when not fixed: no position embedding
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(train, steps, length=LENGTH):
            optimizer.zero_grad()
            loss = lm_loss(model, window)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.measured_held_out_loss = held_out_loss(model, held_out)
    return mon
