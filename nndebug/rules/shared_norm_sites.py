"""NORM_STATISTICS_SHARED_ACROSS_SITES: one batch-norm layer called at two or more sites of
one forward pass whose activations differ (``run.observed.shared_norm_sites``,
``monitor/shared_norm_sites.py``).

In training each call normalises with its own batch, so nothing looks wrong; the running
mean and variance are a blend of the sites, and ``model.eval()`` normalises every site with
the blend. Calls on one distribution (a siamese encoder, one norm over chunks of a batch)
are fine: only sites whose inputs are clearly apart are named. A norm inside one block
object listed at several positions of a container (``n * [Block()]``) is left to
MODULE_REPEATED_IN_CONTAINER, which names that cause (``run.observed.repeated_modules``).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

NORM_SITES_SPREAD_RATIO = 4.0   # [measured] median over channels of the larger variance over
                                # the smaller, between two calls of one norm in a forward:
                                # tabnet's norm shared by two steps (dreamquark-ai/tabnet#76)
                                # 25-30, the norm of n * [ResBlock()] 13-15; a siamese
                                # encoder's norm on two halves of a digits batch 1.2-1.35, and
                                # 20,000 simulated pairs on one distribution 3.02 at most (at
                                # the monitor's NORM_SITES_MIN_VALUES / _MIN_CHANNELS)
NORM_SITES_MEAN_GAP = 0.75      # [measured] median over channels of the means' difference in
                                # pooled standard deviations: the siamese halves 0.12-0.15,
                                # the simulated pairs 0.54 at most. bn1 written for bn2 in a
                                # two-conv digits CNN: 0.2-1.5 over 8 seeds (spread 1.4-4.7),
                                # named on 4 of them; the tabnet case 0.38-0.44 is named by
                                # its spread


def _in_repeated_position(ctx, norm):
    """Whether ``norm`` lies inside a module that a container lists at several positions."""
    for container, _, positions, _ in observed_list(ctx, "repeated_modules"):
        prefix = f"{container}." if container else ""
        if any(norm.startswith(f"{prefix}{position}.") for position in positions):
            return True
    return False


@rule(produces="NORM_STATISTICS_SHARED_ACROSS_SITES")
def norm_statistics_shared_across_sites(ctx):
    rows = [row for row in observed_list(ctx, "shared_norm_sites")
            if (row[4] >= NORM_SITES_SPREAD_RATIO or row[3] >= NORM_SITES_MEAN_GAP)
            and not _in_repeated_position(ctx, row[1])]
    if not rows:
        return None
    step, norm, calls, gap, ratio = max(rows, key=lambda row: (row[4], row[3]))
    names = sorted({row[1] for row in rows})
    return Finding(
        code="NORM_STATISTICS_SHARED_ACROSS_SITES", severity="warning", where="forward",
        step=step,
        message=f"The batch norm {norm!r} is called {calls} times in one forward pass, on "
                f"activations that differ (variances {ratio:.1f}x apart, means {gap:.2f} "
                "standard deviations apart, medians over channels). In training each call "
                "uses its own batch's statistics, so the loss looks fine; its running mean "
                "and variance blend the sites and fit none, and in eval() every site is "
                "normalised with the blend."
                + (f" Also: {', '.join(repr(n) for n in names if n != norm)}."
                   if len(names) > 1 else ""),
        evidence={"norm": norm, "calls": calls, "mean_gap": round(gap, 3),
                  "spread_ratio": round(ratio, 2), "norms": names,
                  "steps": sorted({row[0] for row in rows})},
        fix="Give each site its own norm layer (share the weights you mean to share, e.g. "
            "the Linear, and build a BatchNorm per step / per use: bn1, bn2, not bn1 "
            "twice); a block reused across steps should not hold its norm.")
