"""Every batch drawn from the same handful of samples.

The monitor counts, on its first judged records, the distinct rows of each input batch and
the distinct rows seen over all of them (``monitor/sample_rows.py``: ``run.observed.batch_rows``,
``(step, batch size, distinct rows, distinct rows seen so far)``). A loader that repeats a few samples over and over - a
``WeightedRandomSampler`` given one weight per class instead of one per sample draws indices
0..C-1 only - shows both: most rows of a batch are copies of others, and all the batches
together hold fewer different samples than a single batch has rows. The model learns those
few samples by heart; its loss falls and it never sees the rest of the data.

Healthy loaders stay silent: shuffled batches (every row different), full-batch training
(one batch, again and again, but no row repeated within it), and sampling with replacement
from a dataset larger than a few batches (repeats are rare, and new samples keep coming).
A dataset smaller than half a batch, sampled with replacement, is named too: its findings
say how many samples there are, which is what the user needs to check.

Public report: "Fix bug in WeightedRandomSampler usage"
(https://github.com/deep-voice/soundbay/pull/49).
"""
from ..findings import Finding
from .context import MAJORITY, observed_list
from .graph import rule

MIN_SAMPLED_BATCHES = 4     # [design] batches counted before a verdict (8 are sampled)
REPEATED_SHARE = 0.5        # [design] at most half of a batch's rows are distinct: each
                            # sample appears twice or more on average
FEW_SAMPLES_SHARE = 0.5     # [design] all sampled batches together hold at most half a
                            # batch of different samples: nothing new arrives


@rule(produces="BATCHES_FROM_FEW_SAMPLES")
def batches_from_few_samples(ctx):
    rows = observed_list(ctx, "batch_rows")
    judged = {r.step for r in ctx.run.records}
    counted = [(step, batch, distinct, seen) for step, batch, distinct, seen in rows
               if batch >= 2 and (step in judged or not judged)]
    if len(counted) < MIN_SAMPLED_BATCHES:
        return None
    repeated = [c for c in counted if c[2] <= REPEATED_SHARE * c[1]]
    _, batch, _, seen = counted[-1]
    if len(repeated) <= MAJORITY * len(counted) or seen > FEW_SAMPLES_SHARE * batch:
        return None
    return Finding(
        code="BATCHES_FROM_FEW_SAMPLES", severity="warning", step=repeated[0][0],
        message=f"The {len(counted)} batches checked hold only {seen} different samples in all "
                f"(batches of {batch}; {len(repeated)} of them repeat most of their rows): "
                "every batch is drawn from the same handful of samples, so the model learns "
                "those by heart and never sees the rest of the data.",
        evidence={"samples_seen": seen, "batch_size": batch,
                  "distinct_rows_per_batch": [c[2] for c in counted],
                  "steps": [c[0] for c in counted]},
        fix="Check the sampler: WeightedRandomSampler needs one weight per SAMPLE "
            "(weights[i] = class_weight[label[i]], num_samples=len(dataset)), not one per "
            "class; otherwise check the dataset's length and the indices the loader draws.")
