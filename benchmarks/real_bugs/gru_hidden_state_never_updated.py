"""A frame-by-frame GRU (one prediction per frame, a loss at every frame) whose loop hands
the GRU the same initial hidden state at every step: the state the GRU returns is thrown
away, so each frame is read as if it were the first and nothing is carried from one frame
to the next. The recurrent weights multiply a zero state at every step and never learn;
the model is a per-frame classifier that cannot use what came before.

Reported: "Is it possible that the hidden state h in a GRU network does not update as time
t increases？" - https://github.com/JWFanggit/LOTVS-CAP/issues/9 ("each time step should
input the current frame ... and the hidden state from the previous time step. But in codes,
hh is 0 and not undate"; the loop calls ``self.gru_net(x, hh)`` with ``hh`` built once as
zeros, beside a ``# TODO: hh need to update?``). Here the 8x8 digits read as 8 frames of 8
pixels, the digit's class the label of every frame (as the report's per-frame loss).
Fix: feed the state the GRU returns back in at the next frame.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = ("Is it possible that the hidden state h in a GRU network does not update as time "
         "t increases？")
LINK = "https://github.com/JWFanggit/LOTVS-CAP/issues/9"
EXPECTED = ("RNN_READ_BEFORE_RECURRENCE", "RECURRENT_STATE_NEVER_PASSED")
STEPS = 150


class FrameGRU(nn.Module):
    def __init__(self, carry_state, hidden=32):
        super().__init__()
        self.carry_state = carry_state
        self.hidden = hidden
        self.gru = nn.GRU(8, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 10)

    def forward(self, frames):                 # frames: (batch, 8 frames, 8 pixels)
        hh = torch.zeros(1, frames.shape[0], self.hidden)   # the initial state
        state = hh
        outputs = []
        for t in range(frames.shape[1]):
            out, new_state = self.gru(frames[:, t:t + 1], state)
            if self.carry_state:
                state = new_state
            # BUG when not carry_state: the next frame starts from hh again
            outputs.append(self.head(out[:, 0]))
        return torch.stack(outputs, 1)         # (batch, frames, classes)


def frame_loss(logits, labels):
    """Every frame is labelled with the sequence's class; the loss averages the frames."""
    frames = logits.shape[1]
    return nn.functional.cross_entropy(logits.reshape(-1, 10),
                                       labels.repeat_interleave(frames))


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = FrameGRU(carry_state=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x.view(-1, 8, 8), y, steps):
            optimizer.zero_grad()
            loss = frame_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
