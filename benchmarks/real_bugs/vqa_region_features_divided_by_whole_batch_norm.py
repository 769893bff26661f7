"""A VQA model's pre-extracted region features "L2-normalised" with ``v / torch.norm(v, 2)``:
with no ``dim`` the norm is taken over the whole batch tensor (batch x regions x features),
so every region vector is divided by one number that grows with the square root of the
batch size. The features come out tens of times smaller than any one region's norm, the
attention and the answer classifier see a faint image signal, and at evaluation, where the
held-out questions are scored in one larger batch, the features shrink again by a factor
the model never saw in training. Nothing errors; the answers are worse.

Reported: "How l2-normalization over feature is implemented ?" -
https://github.com/hengyuan-hu/bottom-up-attention-vqa/issues/22 (the reporter added the
L2 normalisation of the image features that the tips-and-tricks paper calls crucial, as
``v = v / torch.norm(v, 2)`` at the start of the forward pass, and the validation score
went down; the maintainer answered that normalising did not help them either - the
normalisation asked for is one per region feature vector, which that line is not).
Here: questions about 2x2 digit collages ("which digit is in cell c?", "is there a d?",
13 answers), the four cells' pixels as pre-extracted region features, a small bottom-up /
top-down attention model (mean-of-words question vector, attention over the regions from
the product of the projected region and question, multiplicative fusion, MLP classifier),
Adam, batch 64; the held-out questions scored in one batch of
1,000. Fix: ``F.normalize(v, dim=-1)``, one norm per region vector.

Measured (400 steps, held-out answer accuracy, 1,000 held-out questions): seed 0: 0.48
for the bug against 0.76 for the fixed twin; seeds + 1000: 0.48 against 0.82 (the bug
stays at the answer-prior plateau: "blank" for every cell question, yes/no by the prior).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._captioning import TopDownVQA, drawn_seed, shuffled_batches, vqa_data

TITLE = "How l2-normalization over feature is implemented ?"
LINK = "https://github.com/hengyuan-hu/bottom-up-attention-vqa/issues/22"
EXPECTED = ("EMBEDDINGS_NORMALIZED_OVER_BATCH",)
STEPS = 400
BATCH = 64
TRAIN, HELD_OUT = 3000, 1000


class NormalisedVQA(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.vqa = TopDownVQA()

    def forward(self, v, questions):
        if self.fixed:
            v = F.normalize(v, dim=-1)               # one norm per region vector
        else:
            v = v / torch.norm(v, 2)                 # BUG: one norm for the whole batch
        return self.vqa(v, questions)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data_seed = drawn_seed()
    regions, questions, answers = vqa_data(TRAIN, seed=data_seed)
    model = NormalisedVQA(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in shuffled_batches(TRAIN, steps, BATCH):
            optimizer.zero_grad()
            loss = criterion(model(regions[index], questions[index]), answers[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    held_regions, held_questions, held_answers = vqa_data(HELD_OUT, held_out=True,
                                                          seed=data_seed)
    with torch.no_grad():
        predicted = model(held_regions, held_questions).argmax(-1)
    mon.held_out_accuracy = (predicted == held_answers).float().mean().item()
    mon.final_loss = loss.item()
    return mon
