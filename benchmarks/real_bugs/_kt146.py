"""Shared pieces of real-bug batch 146 (sequence models over user histories that see their
labels or mix users): synthetic students answering questions on a few skills, a DKT-style
recurrent model, and the held-out AUC of next-answer predictions.

Students: each has an overall ability and a per-skill offset; a skill has a difficulty;
every attempt on a skill raises the chance of answering it right (practice), up to a cap.
Attempts come in short runs on one skill (as in tutoring logs), so a student's earlier
answers on the skill (and overall) predict the next one. Interaction ids: 0 pads, a
(skill, correct) pair is ``1 + skill + SKILLS * correct``.
"""
import numpy as np
import torch
from torch import nn

SKILLS = 12
LENGTH = 40
TRAIN_STUDENTS, TEST_STUDENTS = 1200, 400
DIM, HIDDEN = 32, 64


def students(count, rng, difficulty, min_length=LENGTH, max_length=LENGTH):
    """(skills, correct, lengths): (count, LENGTH) int64 skills and responses (0 after each
    student's length) and the lengths."""
    skills = np.zeros((count, LENGTH), dtype=np.int64)
    correct = np.zeros((count, LENGTH), dtype=np.int64)
    lengths = rng.integers(min_length, max_length + 1, count)
    for s in range(count):
        ability = rng.normal(0, 1.0)
        offset = rng.normal(0, 1.0, SKILLS)
        practice = np.zeros(SKILLS)
        skill = int(rng.integers(SKILLS))
        for t in range(lengths[s]):
            if t and rng.random() > 0.6:
                skill = int(rng.integers(SKILLS))
            logit = ability + offset[skill] - difficulty[skill] + 0.5 * min(practice[skill], 4) - 1
            skills[s, t] = skill
            correct[s, t] = int(rng.random() < 1 / (1 + np.exp(-logit)))
            practice[skill] += 1
    return torch.from_numpy(skills), torch.from_numpy(correct), torch.from_numpy(lengths)


def cohorts(seed=0, **lengths):
    """(train, test) cohorts drawn from one set of skill difficulties."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 1.0, SKILLS)
    return (students(TRAIN_STUDENTS, rng, difficulty, **lengths),
            students(TEST_STUDENTS, rng, difficulty, **lengths))


def interactions(skills, correct, lengths):
    """Interaction ids (0 after each student's length)."""
    ids = 1 + skills + SKILLS * correct
    ids[torch.arange(skills.shape[1])[None, :] >= lengths[:, None]] = 0
    return ids


def student_batches(count, steps, batch=64, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield torch.from_numpy(rng.integers(0, count, batch))


class DKT(nn.Module):
    """Deep knowledge tracing: a GRU over interaction ids; at each step one logit per skill,
    the chance of answering that skill right NEXT."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1 + 2 * SKILLS, DIM, padding_idx=0)
        self.gru = nn.GRU(DIM, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, SKILLS)

    def forward(self, ids):
        return self.out(self.gru(self.embed(ids))[0])            # (B, T, SKILLS)


def next_logits(logits, skills):
    """The logit each step gives for the NEXT step's skill: (B, T - 1)."""
    return logits[:, :-1].gather(2, skills[:, 1:, None]).squeeze(2)


def auc(scores, labels):
    """Area under the ROC curve of 1-D scores against 0/1 labels (ties broken by order)."""
    scores, labels = scores.double(), labels.double()
    order = scores.argsort()
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=torch.double)
    positives = labels.sum()
    negatives = len(labels) - positives
    return round(((ranks[labels == 1].sum() - positives * (positives + 1) / 2)
                  / (positives * negatives)).item(), 3)


def dkt_held_out_auc(model, test):
    """AUC of a DKT model's next-answer predictions over the held-out students' real steps."""
    skills, correct, lengths = test
    model.eval()
    with torch.no_grad():
        scores = next_logits(model(interactions(skills, correct, lengths)), skills)
    real = torch.arange(1, LENGTH)[None, :] < lengths[:, None]
    return auc(scores[real], correct[:, 1:][real])
