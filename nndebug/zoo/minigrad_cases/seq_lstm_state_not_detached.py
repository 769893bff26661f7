"""HIDDEN_STATE_NOT_DETACHED: an LSTM's state carried across batches without ``.detach()``."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.minigrad_cases._streams import LSTMLanguageModel, stream_chunks

NAME = "minigrad/seq-lstm-state-not-detached"
FRAMEWORK = "minigrad"
EXPECTED = "HIDDEN_STATE_NOT_DETACHED"
DESCRIPTION = ("An LSTM language model trained on consecutive chunks of token streams "
               "(truncated backpropagation through time) carries its (h, c) state to the next "
               "chunk without detaching it: every backward runs through all the chunks seen "
               "so far, so each step is slower than the last and the gradients mix in old "
               "batches. minigrad keeps the old graphs alive and says nothing (torch would "
               "refuse the second backward).")
FIX = "Cut the graph between chunks: state = tuple(s.detach() for s in state)."
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
            logits, state = model(ids, state)        # BUG: state never detached
            loss = loss_fn(logits.reshape(-1, 16), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
