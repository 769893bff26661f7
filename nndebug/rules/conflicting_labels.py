"""CONFLICTING_LABELS_ON_IDENTICAL_INPUTS: in every training batch read, a large share of
the rows have an input identical, bit for bit, to another row's while their targets
differ (``run.observed.conflicting_label_rows``, ``monitor/identical_input_rows.py``).

One input cannot be given two answers, so the loss cannot fall below the entropy of the
clashing labels: a pair labelled 0 and 1 on the same image holds the cross-entropy at
ln 2 = 0.693 for good. Such twins come from the data pipeline, not from the world: a pair
dataset whose second path resolves to the first file (a path split on the wrong separator,
an absolute name joined to another folder), a "negative" drawn from the positive's own
file. Public report: "why always loss equal 0.6931?",
https://github.com/1204BUPT/Zhu-Net-image-steganalysis/issues/1 (the file names were split
on '\\\\' on Linux, so the stego path was the cover's own path).

Blank rows (all one value) are not counted by the monitor, so batches of constant inputs
are left to CONSTANT_INPUTS. The loss need not stay flat for the finding: with ten classes
a batch of clashing pairs still lets it fall from ln 10 to ln 2, while the accuracy is
capped at one half; the share of clashing rows in every batch read is the evidence.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CONFLICT_MIN_BATCHES = 2    # [design] training batches read before a verdict
CONFLICT_SHARE = 0.5        # [design] share of a batch's rows whose identical twin has
                            # another target, in EVERY batch read: natural data has ~0 exact
                            # twins with other targets (measured on the fixed twins of
                            # the 282 real-bug cases, first 3 batches, 191 cases read: 0
                            # in all but two DQN replay batches, 0.02 and 0.06; a session
                            # recommender's carried state reached 0.69 before only the
                            # first argument was read); the planted pair dataset has 1.0


def rules_out(row):
    """Whether one batch's row (step, rows, distinct inputs, clashing rows) rules the finding
    out: a batch of distinct inputs too few of whose rows clash."""
    return row[2] > 1 and row[3] < CONFLICT_SHARE * row[1]


@rule(produces="CONFLICTING_LABELS_ON_IDENTICAL_INPUTS",
      explains={"LOSS_AT_CHANCE", "LOSS_PLATEAU"})
def conflicting_labels_on_identical_inputs(ctx):
    rows = [row for row in observed_list(ctx, "conflicting_label_rows") if row[2] > 1]
    if len(rows) < CONFLICT_MIN_BATCHES or any(rules_out(row) for row in rows):
        return None
    shares = [row[3] / row[1] for row in rows]
    clashing, read = sum(row[3] for row in rows), sum(row[1] for row in rows)
    return Finding(
        code="CONFLICTING_LABELS_ON_IDENTICAL_INPUTS", severity="warning", where="inputs",
        step=rows[0][0],
        message=f"{clashing} of {read} training rows read ({clashing / read:.0%}) have an "
                "input identical, bit for bit, to another row's in the same batch, with "
                "another target: no model can answer both, so the loss cannot fall below the "
                "entropy of the clashing labels (ln 2 = 0.693 for a pair labelled 0 and 1). "
                "Exact twins come from the data pipeline reading one file for two samples.",
        evidence={"rows": read, "clashing_rows": clashing, "shares": shares,
                  "steps": [row[0] for row in rows], "threshold": CONFLICT_SHARE},
        fix="Print the paths (or indices) the dataset reads for the two members of a pair: "
            "a second path that resolves to the first file (a name split on the wrong "
            "separator - use os.path.basename - or an absolute name joined to another "
            "folder) reads the same image for both labels.")
