"""A DKT model whose padded steps stay in the loss: the histories are right-padded to a
common length, and the target builder that picks each step's (next skill, correct) pair
reads the padding as answers - a right answer on the first skill - because the padding
value was changed to 0 to make it run. Short histories are mostly padding, so most of the
loss is spent teaching the model that "skill 0 is answered right" wherever a history has
ended; nothing errors, the loss falls (padding is easy to fit), and the predictions for
real attempts, skill 0's above all, are pulled toward it.

Reported: "2 errors found: TrueNegatives typos, "get_target" function does not support
masking" - https://github.com/lccasagrande/Deep-Knowledge-Tracing/issues/16 (the padding
value -1 was replaced by 0 so that ``get_target`` works, "but this way the padded values
will be considered in your metrics and loss as correct anwered values"; the reporter
moved the target selection into a masked layer and saw AUC, accuracy and loss change a
lot where sequence lengths vary). Here DKT (a GRU over (skill, correct) ids,
benchmarks/real_bugs/_kt146.py), histories of 4-40 attempts right-padded to 40. Fix: the
loss averaged over real next steps only.

Measured (500 Adam steps, batch 64, 1,200 training and 400 held-out students; held-out
AUC of the next answer over real steps, and the log-loss on real skill-0 attempts): seed
0: skill-0 log-loss 0.883 for the bug against 0.687 for the fixed twin; seeds shifted by
1000: 0.748 against 0.639. The ranking of real answers is barely touched (AUC 0.732
against 0.724; 0.772 against 0.765): the harm is what the probabilities say for the
padding's skill, which the model over-predicts as known.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import (DKT, LENGTH, cohorts, dkt_held_out_auc,
                                         interactions, next_logits, student_batches)

TITLE = ('2 errors found: TrueNegatives typos, "get_target" function does not support '
         'masking')
LINK = "https://github.com/lccasagrande/Deep-Knowledge-Tracing/issues/16"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 500
SHORTEST = 4


def skill_zero_log_loss(model, test):
    skills, correct, lengths = test
    model.eval()
    with torch.no_grad():
        logits = next_logits(model(interactions(skills, correct, lengths)), skills)
    real = torch.arange(1, LENGTH)[None, :] < lengths[:, None]
    pick = real & (skills[:, 1:] == 0)
    return round(F.binary_cross_entropy_with_logits(
        logits[pick], correct[:, 1:][pick].float()).item(), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0, min_length=SHORTEST)
    skills, correct, lengths = train
    ids = interactions(skills, correct, lengths)
    padded = torch.arange(LENGTH)[None, :] >= lengths[:, None]
    # the padding value 0 read as skill 0, answered right, by the target builder
    target_skills = skills.masked_fill(padded, 0)
    target_correct = correct.masked_fill(padded, 1).float()
    model = DKT()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for pick in student_batches(len(ids), steps, seed=0):
            optimizer.zero_grad()
            logits = next_logits(model(ids[pick]), target_skills[pick])
            losses = F.binary_cross_entropy_with_logits(
                logits, target_correct[pick, 1:], reduction="none")
            if fixed:
                real = ~padded[pick, 1:]
                loss = (losses * real).sum() / real.sum()
            else:        # BUG: every padded step scored as a right answer on skill 0
                loss = losses.mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_auc = dkt_held_out_auc(model, test)
    mon.held_out_skill_zero_log_loss = skill_zero_log_loss(model, test)
    return mon
