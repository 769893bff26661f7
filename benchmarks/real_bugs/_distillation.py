"""Pieces the distillation cases share: a held-out split of the digits, a teacher trained
first on the training rows, the KD loss of Hinton et al. (2015), and test accuracy."""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification

HELD_OUT = 400               # the last rows of the digits, never trained on


def digits_split():
    """(x_train, y_train, x_test, y_test): the digits with their last HELD_OUT rows held out."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def teacher_net(hidden=256, dropout=0.0):
    layers = [nn.Linear(64, hidden), nn.ReLU()]
    if dropout:
        layers.append(nn.Dropout(dropout))
    layers += [nn.Linear(hidden, hidden), nn.ReLU()]
    if dropout:
        layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(hidden, 10))
    return nn.Sequential(*layers)


def trained_teacher(x, y, hidden=256, dropout=0.0, steps=400):
    """A teacher trained with Adam on the training rows, returned in eval mode and frozen."""
    torch.manual_seed(1)
    teacher = teacher_net(hidden, dropout)
    optimizer = torch.optim.Adam(teacher.parameters(), lr=2e-3)
    for xb, yb in batches(x, y, steps, seed=1):
        optimizer.zero_grad()
        F.cross_entropy(teacher(xb), yb).backward()
        optimizer.step()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher.eval()


def kd_loss(student_logits, teacher_logits, labels, temperature, alpha, squared=True):
    """alpha * T^2 * KL(teacher_T || student_T) + (1 - alpha) * CE(student, labels); the
    T^2 keeps the soft term's gradient at the hard term's scale (``squared=False`` drops it)."""
    soft = F.kl_div(F.log_softmax(student_logits / temperature, dim=-1),
                    F.softmax(teacher_logits / temperature, dim=-1), reduction="batchmean")
    if squared:
        soft = soft * temperature * temperature
    return alpha * soft + (1.0 - alpha) * F.cross_entropy(student_logits, labels)


@torch.no_grad()
def accuracy(model, x, y):
    was = model.training
    model.eval()
    correct = (model(x).argmax(-1) == y).float().mean().item()
    model.train(was)
    return correct
