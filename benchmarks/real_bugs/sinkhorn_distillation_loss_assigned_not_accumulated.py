"""A student distilled from a teacher with an optimal-transport loss written as a loop over
the batch whose body ASSIGNS the loss instead of adding to it: ``loss = w * sinkhorn(s[i],
t[i])`` where ``loss += ...`` was meant. After the loop only the last example's term is
left, so every step trains on one example of the 64 - the gradient is 64 times noisier
and the student sees a 64th of the transfer set. The loss is a real, falling transport
cost (of one example), nothing errors, and the run just ends far worse than it should.

Reported: "Calculation of Sikhorn_SEQ" - https://github.com/2018cx/Multi-Level-OT/issues/5
(the reporter noticed that the Sinkhorn distillation loss loops over the sequences and
keeps only the last one's ``emd_loss``; the author confirmed the missing ``+`` - "the loop
only retain[ed] the loss from the last index" - and fixed it to accumulate). Here: a
teacher MLP trained on the 8x8 digits' labels (benchmarks/real_bugs/_distillation.py), a
smaller student trained on the teacher's outputs alone (temperature 2), the per-example
entropic transport cost between the two class histograms (classes equidistant, eps 0.05,
30 log-domain Sinkhorn iterations, benchmarks/real_bugs/_ot.py), Adam. Fix: accumulate
the per-example terms (``+=``), as the author did.

Measured (500 steps, batch 64, 400 held-out digits; the student's held-out accuracy on
the labels): seed 0: 0.655 for the bug against 0.892 for the fixed twin; seeds shifted by
1000: 0.555 against 0.882.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._distillation import accuracy, digits_split, trained_teacher
from benchmarks.real_bugs._ot import EQUIDISTANT_COST, wasserstein_class_loss

TITLE = "Calculation of Sikhorn_SEQ"
LINK = "https://github.com/2018cx/Multi-Level-OT/issues/5"
EXPECTED = ("LOSS_FROM_ONE_EXAMPLE",)
STEPS = 500
TEMPERATURE = 2.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = digits_split()
    teacher = trained_teacher(x_train, y_train)
    torch.manual_seed(0)
    student = mlp(hidden=32)
    optimizer = torch.optim.Adam(student.parameters(), lr=3e-3)
    with nd.watch(student, optimizer, **watch) as mon:
        for xb, _ in batches(x_train, y_train, steps):
            with torch.no_grad():
                soft_targets = torch.softmax(teacher(xb) / TEMPERATURE, dim=1)
            student_probabilities = torch.softmax(student(xb) / TEMPERATURE, dim=1)
            terms = wasserstein_class_loss(student_probabilities, soft_targets,
                                           cost=EQUIDISTANT_COST)
            loss = 0.0
            for i in range(len(terms)):
                if fixed:
                    loss = loss + terms[i]
                else:
                    loss = terms[i]          # BUG: assigned, only the last example is kept
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(student, x_test, y_test)
    return mon
