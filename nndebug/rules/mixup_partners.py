"""MIXUP_PARTNERS_MISMATCHED: the mixed targets' second class is not the class of the row
the input was blended with (``run.observed.mixup_partner_rows``,
``monitor/mixup_partners.py``).

Mixup trains on ``lam * x_i + (1 - lam) * x_j`` towards ``lam * y_i + (1 - lam) * y_j``;
the two ``j`` must be the same row. Shuffled twice, the labels' partner is another row, and
the (1 - lam) share of every target names a class the input holds nothing of: a random
label with the confidence of the mixing weight. The run still learns - the true share is
there - but slower and to a lower ceiling. Public report: "Mixup returns different
combinations for labels and images", https://github.com/xudonmao/VMT/issues/1 (two separate
``random_shuffle`` calls; after the fix "the performance ... can be further improved for
almost all the tasks").

The monitor explains each mixed input row by the best pair of class prototypes fitted on
the kept rows. The finding needs the prototypes to be informative (the best pair holds at
least one of the target's classes in ``MIN_ONE_MATCH`` of the rows) and, among those rows,
the best pair to hold BOTH classes no more often than chance would with a random second
class. Targets whose two classes both show in the input (right partners, smoothed labels)
are silent. CutMix is read too, but a pasted square is no blend of prototypes (right
partners match both classes in only a third of the rows matching one, a second shuffle in a
quarter), so CutMix with a second shuffle is not told apart. Inputs left unmixed while the
targets are mixed (manifold mixup mixes a hidden layer) match the second class no better
than chance, but neither do they match one class at the blend's weight often enough.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

MIN_ONE_MATCH = 0.25     # [design] share of mixed rows whose best prototype pair holds one
                         # of the target's two classes: below it the input's classes are
                         # not linear enough in the pixels to judge (natural photos)
BOTH_OVER_CHANCE = 2.0   # [measured] rows matching both classes, among those matching one,
                         # at most this times chance (1 / (classes - 1)): planted digits
                         # 0.105 with 10 classes (chance 0.111); right partners 0.49-0.63
                         # (the fixed twin and mixup_mixed_in_place_twice, bug and twin)


@rule(produces="MIXUP_PARTNERS_MISMATCHED",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LOSS_OSCILLATING"})
def mixup_partners_mismatched(ctx):
    rows = observed_list(ctx, "mixup_partner_rows")
    if not rows:
        return None
    step, mixed, classes, one, both = rows[0]
    if mixed <= 0 or one < MIN_ONE_MATCH * mixed or classes < 3:
        return None
    chance = 1.0 / (classes - 1)
    ratio = both / one
    if ratio > BOTH_OVER_CHANCE * chance:
        return None
    return Finding(
        code="MIXUP_PARTNERS_MISMATCHED", severity="warning", where="targets", step=step,
        message=f"{mixed} kept training rows have soft targets of two classes (mixup). "
                f"Explained by class prototypes, {one} of them hold one of their target's "
                f"classes, but only {both} both ({ratio:.0%} of those, chance with a random "
                f"second class is {chance:.0%}): the labels' second class is not the class "
                "of the row each input was blended with. The labels were mixed with another "
                "permutation than the inputs.",
        evidence={"mixed_rows": mixed, "classes": classes, "one_class_matched": one,
                  "both_classes_matched": both, "ratio": round(ratio, 3),
                  "chance": round(chance, 3), "threshold": BOTH_OVER_CHANCE * chance},
        fix="Draw the partner permutation once and use it for both: perm = "
            "torch.randperm(len(x)); x = lam * x + (1 - lam) * x[perm]; y = lam * y + "
            "(1 - lam) * y[perm] (or mix the losses: lam * ce(out, y) + (1 - lam) * "
            "ce(out, y[perm])).")
