"""Sequence-level distillation whose teacher-labelled corpus is assembled from shards: the
transfer set is split into ten parts, the teacher labels each part, and the parts are
concatenated back together - the inputs in shard order (1, 2, ..., 10), the teacher's
outputs in the order the file names sort (``file.1``, ``file.10``, ``file.2``, ...,
``file.9``). From the second shard on, every input is paired with the teacher's output for
a different image. The student trains on the pairs without complaint; its loss falls (it
memorises the pairs it is given) and what it learns is mostly noise.

Reported: "collect-corpus and collect-mono steps merge corpus in wrong order on TC" -
https://github.com/mozilla/translations/issues/220 (the teacher's translation partitions
were concatenated as ``file.10 file.1 file.2 ... file.9`` while the source side kept its
own order, so the merged corpus "do[es] not represent parallel sentences"; the students
distilled from it were broken, traced in issue #272 "Distillation is broken" to "source and
target sentences don't match in the output of merge-translated step"; fix: merge the
partitions in their numeric order). Here a teacher (a 256-unit MLP) trained first on the
1397 training digits labels the same rows, split into 10 shards; the student (a 64-unit
MLP, Adam 2e-3) trains by cross-entropy on (image, teacher's label) pairs from the merged
corpus. Fix: the shards collected in numeric order.

Measured (held-out accuracy on the last 400 digits): seed 0: 0.382 with the bug against
0.905 fixed; seeds shifted by 1000: 0.385 against 0.905.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._kd155 import F, accuracy, setting

TITLE = "collect-corpus and collect-mono steps merge corpus in wrong order on TC"
LINK = "https://github.com/mozilla/translations/issues/220"
EXPECTED = ("DISTILLED_TARGETS_MISALIGNED_WITH_INPUTS", "LABELS_MISALIGNED")
STEPS = 400
SHARDS = 10


def merged_corpus(x, teacher, fixed):
    """The sources and the teacher's labels, each collected from SHARDS files."""
    rows = len(x) - len(x) % SHARDS
    per = rows // SHARDS
    sources, outputs = {}, {}
    with torch.no_grad():
        for i in range(1, SHARDS + 1):
            part = x[(i - 1) * per:i * per]
            sources[f"file.{i}"] = part
            outputs[f"file.{i}.out"] = teacher(part).argmax(-1)
    source_names = sorted(sources, key=lambda n: int(n.split(".")[1]))
    if fixed:
        output_names = sorted(outputs, key=lambda n: int(n.split(".")[1]))
    else:            # BUG: the teacher's files collected in name order: 1, 10, 2, ..., 9
        output_names = sorted(outputs)
    return (torch.cat([sources[n] for n in source_names]),
            torch.cat([outputs[n] for n in output_names]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _, x_test, y_test, teacher, _ = setting()
    inputs, targets = merged_corpus(x, teacher, fixed)
    torch.manual_seed(0)
    student = mlp(hidden=64)
    optimizer = torch.optim.Adam(student.parameters(), lr=2e-3)
    with nd.watch(student, optimizer, **watch) as mon:
        for rows in index_batches(len(inputs), steps, batch_size=64, seed=2):
            loss = F.cross_entropy(student(inputs[rows]), targets[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(student, x_test, y_test)
    return mon
