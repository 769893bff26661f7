"""A SAINT-style knowledge-tracing model whose response stream is not shifted: at step t
the model reads the question AND the response the student gave to it, and is trained to
predict that same response. The label sits in the input; the training loss falls to
nearly nothing within a few hundred steps and a validation split built the same way
agrees, so nothing looks wrong. Deployed, the response to the question being asked is
exactly what is unknown, and the model has learned to read it instead of the student's
history.

Reported: "change the mask to negative infinite according to paper, and shift the
response when training model to avoid label leakage" -
https://github.com/shivanandmn/SAINT_plus-Knowledge-Tracing-/pull/3 (training and
validation accuracy both close to 100% on the Riiid data; the contributor shifted the
response sequence right and put a start token first, so each position reads only the
earlier responses; after the change 92.9% training and 72.2% validation accuracy, in line
with the SAINT+ paper). Here a GRU over the sum of a question embedding and a response
embedding (ids 0 wrong, 1 right, 2 start/unknown) predicts each step's response, on
synthetic students (benchmarks/real_bugs/_kt146.py: 12 skills, 40 attempts, practice
raises the chance of a right answer). Fix: the response stream shifted right by one
behind the start token.

Held-out reading, as each would be deployed: the fixed twin reads the shifted responses
(all known); the bug run reads the real responses up to step t - 1 and, at step t, the
unknown id in place of the answer it must predict.

Measured (400 Adam steps, batch 64, 1,200 training and 400 held-out students; held-out
AUC of each answer): seed 0: 0.653 for the bug against 0.754 for the fixed twin; seeds
shifted by 1000: 0.622 against 0.773.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import (DIM, HIDDEN, SKILLS, auc, cohorts,
                                         student_batches)

TITLE = ("change the mask to negative infinite according to paper, and shift the response "
         "when training model to avoid label leakage")
LINK = "https://github.com/shivanandmn/SAINT_plus-Knowledge-Tracing-/pull/3"
EXPECTED = ("TARGETS_IN_INPUTS", "FUTURE_LEAK")
STEPS = 400
START = 2                      # the start token; also "not known yet" at deployment


class ResponseTracer(nn.Module):
    def __init__(self):
        super().__init__()
        self.questions = nn.Embedding(SKILLS, DIM)
        self.responses = nn.Embedding(3, DIM)
        self.gru = nn.GRU(DIM, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, 1)

    def forward(self, questions, responses, state=None):
        hidden, state = self.gru(self.questions(questions) + self.responses(responses), state)
        return self.out(hidden).squeeze(-1), hidden


def shifted(correct):
    return torch.cat([torch.full((len(correct), 1), START), correct[:, :-1]], 1)


def held_out_auc(model, test, fixed):
    skills, correct, _ = test
    model.eval()
    with torch.no_grad():
        if fixed:
            scores = model(skills, shifted(correct))[0]
        else:      # its own layout: real answers before t, the unknown id at t
            _, hidden = model(skills, correct)
            batch, length = skills.shape
            before = torch.cat([torch.zeros(batch, 1, HIDDEN), hidden[:, :-1]], 1)
            scores = model(skills.reshape(-1, 1), torch.full((batch * length, 1), START),
                           before.reshape(1, -1, HIDDEN).contiguous())[0].view(batch, length)
    return auc(scores.flatten(), correct.flatten())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, _ = train
    model = ResponseTracer()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for pick in student_batches(len(skills), steps, seed=0):
            q, r = skills[pick], correct[pick]
            # BUG when not fixed: each step reads the response it is asked to predict
            responses = shifted(r) if fixed else r
            optimizer.zero_grad()
            logits = model(q, responses)[0]
            loss = F.binary_cross_entropy_with_logits(logits, r.float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_auc = held_out_auc(model, test, fixed)
    return mon
