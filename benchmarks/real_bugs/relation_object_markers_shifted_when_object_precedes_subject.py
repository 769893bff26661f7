"""A relation classifier with entity markers whose data preparation inserts the subject's
markers first and then the object's at the object's word offsets plus two - the two marker
tokens just inserted - as if the object always came after the subject. When the object
comes first (about half the sentences), nothing before it moved, so its <e2> ... </e2>
pair lands two words to the right of the real mention, around filler words or around part
of another mention. Nothing errors, the sentences look marked, the loss falls (the
subject-first half is right), and the model learns to read an object two words away from
where the annotation puts it.

Reported: "two small problems about data_prepare.py" -
https://github.com/THU-BPM/MetaSRE/issues/3 ("If the object is before the subject in the
sentence, the position of entity's indicator '<e2'> '</e2'> can be wrong", with a TACRED
sentence whose object "Tom Thabane" came out as "Tom Thabane <e2> resigned in </e2>" -
the markers exactly two words right of the mention; the maintainers: "we will fix the
problems ASAP"). Here synthetic sentences (benchmarks/real_bugs/_rel358.py): a subject
and an object mention (1-3 words of one of four entity types each), one or two distractor
mentions of other types and 6-12 fillers in random order; the relation (8 classes) is a
function of the two arguments' types, so only the markers say which mentions count. An
embedding and two width-3 convolutions read at the <e1> and <e2> start markers (the
"entity start" representation), Adam. Fix: shift the object's offsets by the two subject
markers only when the subject comes before it.

Measured (relation accuracy on 600 held-out sentences marked at their annotated spans; 2,000
training sentences, 200 steps of 32): 0.878 with the bug, 1.000 fixed; seeds + 1000: 0.950
vs 1.000.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._rel358 import E1, E1_END, E2, E2_END, EntityStartEncoder, pad, \
    sentence

TITLE = "two small problems about data_prepare.py"
LINK = "https://github.com/THU-BPM/MetaSRE/issues/3"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200


def mark(words, subj, obj, fixed):
    """The sentence with <e1> </e1> around the subject and <e2> </e2> around the object."""
    tokens = list(words)
    tokens.insert(subj[1] + 1, E1_END)
    tokens.insert(subj[0], E1)
    if fixed:     # the subject's two markers moved the object only if it came after it
        shift = 2 if obj[0] > subj[1] else 0
    else:         # BUG: the object assumed to follow the subject
        shift = 2
    tokens.insert(obj[1] + shift + 1, E2_END)
    tokens.insert(obj[0] + shift, E2)
    return tokens


def dataset(n, rng, fixed):
    rows, labels = [], []
    for _ in range(n):
        words, subj, obj, relation = sentence(rng)
        rows.append(mark(words, subj, obj, fixed))
        labels.append(relation)
    return pad(rows), torch.tensor(labels)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, labels = dataset(2000, rng, fixed)
    test_ids, test_labels = dataset(600, rng, True)     # marked at the annotated spans
    model = EntityStartEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(ids), 32))
            loss = F.cross_entropy(model(ids[pick]), labels[pick])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(test_ids).argmax(1)
    mon.held_out_accuracy = round(float((predicted == test_labels).float().mean()), 3)
    return mon
