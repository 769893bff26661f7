"""Online knowledge distillation whose teacher is built but never given its trained weights:
the student's checkpoint is loaded, the teacher's is not, so the teacher that produces the
soft targets is a randomly initialised network. Nothing fails; the soft term (weight 0.7)
pulls the student towards the random network's answers, which have nothing to do with the
labels.

Reported: "Teacher model weights loading" -
https://github.com/NVIDIA-NeMo/Megatron-Bridge/issues/1422 (labelled bug: "the teacher
model's weight are not initialized by neither of the above methods. They are initialized to
random or to zeros"; expected: "The teacher model weight are initialized correctly").
Here the digits (the last 400 held out), a 256-wide teacher trained first and saved, a
32-wide student distilled with alpha 0.9 and T 4 by SGD; the distillation script builds the
teacher from its config and, in the buggy version, never loads the saved state dict.
Measured on the held-out digits (seed 0, 240 steps): student accuracy 0.822 distilled from
the random teacher, 0.918 from the trained one.
Fix: load the teacher's checkpoint (and check its accuracy) before distilling.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._distillation import (digits_split, kd_loss, teacher_net,
                                                trained_teacher)

TITLE = "Teacher model weights loading"
LINK = "https://github.com/NVIDIA-NeMo/Megatron-Bridge/issues/1422"
EXPECTED = ("SOFT_TARGETS_DISAGREE_WITH_LABELS",)
STEPS = 240
TEMPERATURE = 4.0
ALPHA = 0.9


def distillation_teacher(checkpoint, load):
    """The teacher as the distillation recipe builds it: from its config, then (when
    ``load``) its saved weights."""
    torch.manual_seed(3)
    teacher = teacher_net()
    if load:
        teacher.load_state_dict(checkpoint)
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher.eval()


def trained(fixed=False, steps=STEPS, **watch):
    """(monitor, student) after distillation."""
    x, y, _, _ = digits_split()
    checkpoint = trained_teacher(x, y).state_dict()
    teacher = distillation_teacher(checkpoint, load=fixed)   # BUG: weights never loaded
    torch.manual_seed(0)
    student = mlp(hidden=32)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(student, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            with torch.no_grad():
                teacher_logits = teacher(xb)
            optimizer.zero_grad()
            loss = kd_loss(student(xb), teacher_logits, yb, TEMPERATURE, ALPHA)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, student


def run(fixed=False, steps=STEPS, **watch):
    return trained(fixed, steps, **watch)[0]
