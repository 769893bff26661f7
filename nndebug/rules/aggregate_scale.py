"""AVERAGE_WEIGHTS_NOT_NORMALISED: the weights the loop writes into the model between
optimizer steps change size by one and the same factor, write after write
(``run.observed.rewritten_weights``, ``monitor/rewritten_weights.py``: each write's
entries' size against the first step's).

A federated loop simulated in one process loads the server's aggregate into the client
model at the start of every client's local run. FedAvg's aggregate is a weighted AVERAGE of
the clients' models: coefficients that sum to 1. When they do not, every round's aggregate
is the clients' models times that sum, the clients start the next round from it and come
back with models of about its size, and the next aggregate multiplies again: the loaded
weights grow (or shrink) geometrically. Seen in:
  - each of S sampled clients weighted S / N instead of 1 / S (ssg-research/WAFFLE#6: the
    sum S^2 / N is 1 only for 10 of 100 clients; 6 of 9 here gives 4, and the written
    weights grew 16, 64, 256, 1,026, 4,105 times the first step's)
  - an aggregate never cleared between rounds (cisco-open/flame#95: the new average is
    added to the old aggregate, which the clients started from - twice its size each
    round: 2, 4, 8, 16, 32, 65)
  - weights normalised over all clients while only 3 of 5 are averaged
    (rruisong/pytorch_federated_learning#4: sum 0.6; 0.6, 0.37, 0.24, 0.16 until training
    balances the shrinking)
In all three the local losses fall within a round; the symptoms watch names otherwise are
exploding gradients or a diverging loss (growth) and a plateau (shrinking).

What the loop writes on purpose keeps the size: a healthy FedAvg aggregate of clients
trained from the same start is of their size (written sizes 1.00-1.18 over 750 steps in
the batch-117 and batch-183 twins), an EMA copy or a checkpoint reload is of the weights'
size, a fresh draw of the weights of the first one's (real-bug batch 143). The test is a
RUN of consecutive size changes between distinct written states, all beyond the same
factor in the same direction: training that grows the weights does it by a few percent
between writes, and one reload of a bigger or smaller state changes the size once.
"""
from ..findings import Finding
from .context import observed_list
from .curve import WRITE_JUMP_UPDATES
from .graph import rule

SCALE_FACTOR = 1.4           # [measured] the size change between consecutive distinct
                             # written states that counts: the faulty aggregates change it by
                             # 1.5-1.7x (sum 0.6), 2x (accumulated), 4x (S^2 / N = 4); healthy
                             # FedAvg twins by 0.97-1.04x between rounds
SCALE_MIN_RUN = 3            # [design] consecutive changes beyond the factor, one direction:
                             # one reload of an older or fresher state changes the size once
SCALE_AWAY_SHARE = 1.0      # [measured] median over the run's new states of the distance
                             # each write left to the weights the local run began from,
                             # against the distance that run travelled: above 1, the write
                             # carried them past where training took them - a rescaled
                             # aggregate (1.3-1.8 for a sum of 0.6 planted, 1.5-3.8 in batch
                             # 117's case, 4-480 for 2x and 4x); an average of clients that
                             # diverged by their own training pulls them back (0.00-0.02 in
                             # batch 117's SCAFFOLD case, whose written sizes grow 5-12x a
                             # round)
SAME_STATE = 1e-3            # [design] relative size difference below which consecutive
                             # writes are one state loaded again (each client of a round
                             # starts from the same aggregate)


def scaled_writes(rows):
    """The longest run of consecutive distinct written states whose size changes by more
    than ``SCALE_FACTOR`` each time, in one direction: [(step, size, share left), ...] (the
    state before the run included), or [] when there is none. ``rows``: rewritten_weights
    rows in step order (step, jump, share left, size)."""
    states = []
    for row in rows:
        size = float(row[3])
        if not size > 0:
            continue
        if states and abs(size / states[-1][1] - 1.0) < SAME_STATE:
            continue
        states.append((int(row[0]), size, float(row[2])))
    best, run, direction = [], [], 0
    for before, after in zip(states, states[1:]):
        ratio = after[1] / before[1]
        step_dir = 1 if ratio >= SCALE_FACTOR else -1 if ratio <= 1.0 / SCALE_FACTOR else 0
        if step_dir and step_dir == direction and run:
            run.append(after)
        elif step_dir:
            run, direction = [before, after], step_dir
        else:
            run, direction = [], 0
        if len(run) > len(best):
            best = list(run)
    return best if len(best) > SCALE_MIN_RUN else []


@rule(produces="AVERAGE_WEIGHTS_NOT_NORMALISED",
      explains={"EXPLODING_GRADIENTS", "LOSS_DIVERGING", "LOSS_OSCILLATING", "LOSS_PLATEAU"})
def average_weights_not_normalised(ctx):
    rows = sorted((row for row in observed_list(ctx, "rewritten_weights")
                   if len(row) >= 4 and row[1] >= WRITE_JUMP_UPDATES), key=lambda r: r[0])
    run = scaled_writes(rows)
    if not run:
        return None
    away = sorted(share for _, _, share in run[1:])
    if not away[len(away) // 2] >= SCALE_AWAY_SHARE:
        return None
    ratios = [b[1] / a[1] for a, b in zip(run, run[1:])]
    factor = sorted(ratios)[len(ratios) // 2]
    grows = factor > 1.0
    sizes = ", ".join(f"{size:.3g}" for _, size, _ in run[:8])
    return Finding(
        code="AVERAGE_WEIGHTS_NOT_NORMALISED", severity="warning", step=run[1][0],
        message=f"The weights written into the model between optimizer steps "
                f"{'grew' if grows else 'shrank'} by about {factor:.2g}x at each of "
                f"{len(ratios)} consecutive new states (after steps "
                f"{', '.join(str(s) for s, _, _ in run[1:7])}; their size against the first "
                f"step's: {sizes}). A state loaded into the model again and again (a "
                "federated round's aggregate loaded into each client) is a weighted sum of "
                "models like it whose weights do not add up to 1 - each round multiplies "
                "the weights by their sum (each such write carried the weights a median "
                f"{away[len(away) // 2]:.3g}x farther from where the local run began than "
                "that run had moved them).",
        evidence={"steps": [s for s, _, _ in run][:20],
                  "sizes": [round(size, 4) for _, size, _ in run][:20],
                  "distance_left_share": [round(share, 3) for _, _, share in run[1:]][:20],
                  "factor": round(factor, 3), "min_factor": SCALE_FACTOR,
                  "min_run": SCALE_MIN_RUN, "min_away_share": SCALE_AWAY_SHARE},
        fix="Make the aggregate an average: weight each averaged model by its share of the "
            "models actually averaged (n_k / sum of n over the clients aggregated, 1 / S for "
            "S sampled clients), and start the aggregate from zero every round.")
