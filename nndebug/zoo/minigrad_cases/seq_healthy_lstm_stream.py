"""Healthy: the twin of seq-lstm-state-not-detached, its state detached between chunks."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.minigrad_cases._streams import LSTMLanguageModel, stream_chunks

NAME = "minigrad/seq-healthy-lstm-stream"
FRAMEWORK = "minigrad"
EXPECTED = None
DESCRIPTION = ("An LSTM language model trained on consecutive chunks of token streams carries "
               "its (h, c) state to the next chunk and detaches it there (truncated "
               "backpropagation through time done right): every backward covers one chunk.")
FIX = "Nothing to fix."
STEPS = 30


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    model = LSTMLanguageModel()
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    state = None
    with nd.watch(model, optimizer, loss_fn=loss_fn, **watch) as mon:
        for ids, targets in stream_chunks(steps):
            optimizer.zero_grad()
            logits, state = model(ids, state)
            state = tuple(s.detach() for s in state)     # the graph ends with this chunk
            loss = loss_fn(logits.reshape(-1, 16), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
