"""Per-token distillation of a character language model in which the teacher's logits are
shifted one position more than the student's: the student's prediction at position t is
compared with the teacher's prediction at position t + 1 - the distribution of the
character two steps ahead. Shapes still match (one position is dropped from both), the KL
falls, and the student faithfully learns to skip a character: a next-character model whose
next-character predictions are poor.

Reported: "[distillation]: Remove redundant teacher logits shift" -
https://github.com/linkedin/fmchisel/pull/23 (the per-token distillation loss shifted the
teacher's logits although they were already aligned with the student's; fix: remove the
redundant shift). Here the sonnets (benchmarks/real_bugs/_common.characters), the last
tenth held out; a teacher GRU (128 units) trained first by next-character cross-entropy;
the student GRU (48 units, Adam 3e-3) trained by the per-token KL to the teacher alone on
random 32-character windows. Fix: the teacher's logits at the student's positions.

Measured (held-out next-character accuracy on the last tenth of the text; always guessing
the most frequent character scores 0.18, the teacher 0.33): seed 0: 0.086 with the bug
against 0.322 fixed; seeds shifted by 1000: 0.066 against 0.362.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "[distillation]: Remove redundant teacher logits shift"
LINK = "https://github.com/linkedin/fmchisel/pull/23"
EXPECTED = ("DISTILLATION_TARGETS_OFF_BY_ONE_POSITION", "LABELS_MISALIGNED")
STEPS = 400
LENGTH = 32


class CharGRU(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.gru = nn.GRU(32, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        return self.head(self.gru(self.embed(ids))[0])


def trained_teacher(ids, vocab):
    torch.manual_seed(1)
    teacher = CharGRU(vocab, 128)
    optimizer = torch.optim.Adam(teacher.parameters(), lr=5e-3)
    for window in text_windows(ids, 600, length=LENGTH, seed=1):
        logits = teacher(window[:, :-1])
        loss = F.cross_entropy(logits.transpose(1, 2), window[:, 1:])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher.eval()


@torch.no_grad()
def next_char_accuracy(model, ids):
    windows = ids[:len(ids) - len(ids) % (LENGTH + 1)].view(-1, LENGTH + 1)
    logits = model(windows[:, :-1])
    return (logits.argmax(-1) == windows[:, 1:]).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    split = int(len(ids) * 0.9)
    train_ids, held_out = ids[:split], ids[split:]
    teacher = trained_teacher(train_ids, vocab)
    torch.manual_seed(0)
    student = CharGRU(vocab, 48)
    optimizer = torch.optim.Adam(student.parameters(), lr=3e-3)
    with nd.watch(student, optimizer, **watch) as mon:
        for window in text_windows(train_ids, steps, length=LENGTH):
            inputs = window[:, :-1]
            student_logits = student(inputs)
            with torch.no_grad():
                teacher_logits = teacher(inputs)
            if fixed:        # both already predict the next character at each position
                s, t = student_logits, teacher_logits
            else:            # BUG: the teacher's logits shifted once more
                s, t = student_logits[:, :-1], teacher_logits[:, 1:]
            loss = F.kl_div(F.log_softmax(s, dim=-1).flatten(0, 1),
                            F.softmax(t, dim=-1).flatten(0, 1), reduction="batchmean")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = next_char_accuracy(student, held_out)
    mon.teacher_held_out_accuracy = next_char_accuracy(teacher, held_out)
    return mon
