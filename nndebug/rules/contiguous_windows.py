"""STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS: a recurrent language model trained by truncated
backpropagation through time on consecutive windows of the same streams of text, whose
recurrent state is started again from nothing at every window instead of handed on.

Truncated BPTT on a corpus batchifies the text into B parallel streams and reads them a
window at a time, so that batch k+1 continues each stream where batch k ended. The recipe
cuts the gradient at the window's edge but carries the (detached) state over: the next
window continues the same stretch of text. Reset instead - ``hx=None`` or zeros at every
window ("Preserve recurrent hidden state across training examples",
https://github.com/lmjohns3/theanets/issues/132), or an LSTM's cell state zeroed while its
hidden output goes on ("Language model", https://github.com/Lasagne/Recipes/pull/5) - the
model loses all context at every window border and never learns to use more than a
window's worth (held-out cross-entropy about 10% worse in both reproductions, real-bug
batches 170 and 283). Nothing errors and the loss falls as usual.

Read from ``run.observed.window_borders`` (``monitor/window_borders.py``): on the first
recorded steps, the state each recurrent layer's training call received and, for a batch
whose targets are its inputs shifted by one (a language model), each stream's first input
and last target. Consecutive windows are contiguous when, for at least CONTINUED_SHARE of
at least MIN_STREAMS streams, batch k's last target is batch k+1's first input. Named when
on at least MIN_PAIRS consecutive recorded step pairs the windows are contiguous and the
same layer's state was reset on the later step, and that layer never started a contiguous
window from a carried state. A reset on shuffled or independent windows is healthy
(stateless training) and is not named; the opposite bug, a state carried across batches
that do not continue each other, is STATE_CARRIED_ACROSS_BATCHES's.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CONTINUED_SHARE = 0.9    # [design] share of the streams whose next window starts with the
                         # previous window's last target: batchified text continues in every
                         # stream (1.0); unrelated windows match by chance only (about 1/vocab
                         # per stream, 0.05-0.2 on the cases' characters and words)
MIN_STREAMS = 4          # [design] streams needed before a share of matches means anything
MIN_PAIRS = 2            # [design] consecutive recorded step pairs (the default schedule
                         # records steps 0, 1 and 2 first: two pairs) that must agree
MIN_DISTINCT_IDS = 2     # [design] a window that starts every stream with one token (padding,
                         # a start symbol) matches itself whatever the order: not evidence
RESET_KINDS = {"none": "no state (hx=None)", "zeros": "an all-zero state",
               "c_zeros": "its cell state c all zeros (h carried)",
               "h_zeros": "its hidden output h all zeros (c carried)"}   # [source] the
               # state kinds of monitor/window_borders.py; "carried" is the healthy one


def _continued_share(before, after):
    """The share of streams whose window at ``after`` starts with the last target of its
    window at ``before``; None when the two batches cannot be compared."""
    _, axis_before, streams_before, _, last, _ = before
    _, axis_after, streams_after, first, _, _ = after
    kept = min(len(first), len(last))
    if axis_before != axis_after or streams_before != streams_after or \
            kept < MIN_STREAMS or len(set(first)) < MIN_DISTINCT_IDS:
        return None
    return sum(a == b for a, b in zip(last[:kept], first[:kept])) / kept


def _contiguous_pairs(rows):
    """[(later row, share)] of the consecutive recorded steps whose windows continue."""
    by_step = {row[0]: row for row in rows}
    pairs = []
    for step in sorted(by_step):
        before = by_step.get(step - 1)
        share = None if before is None else _continued_share(before, by_step[step])
        if share is not None and share >= CONTINUED_SHARE:
            pairs.append((by_step[step], share))
    return pairs


def _reset_layers(pairs):
    """{layer: [(step, kind, share)]} of the layers reset on at least MIN_PAIRS contiguous
    pairs and never carried on one."""
    resets, carried = {}, set()
    for row, share in pairs:
        for layer, kind in row[5]:
            if kind in RESET_KINDS:
                resets.setdefault(layer, []).append((row[0], kind, share))
            else:
                carried.add(layer)
    return {layer: seen for layer, seen in resets.items()
            if layer not in carried and len(seen) >= MIN_PAIRS}


@rule(produces="STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS")
def state_reset_between_contiguous_windows(ctx):
    rows = observed_list(ctx, "window_borders")
    pairs = _contiguous_pairs(rows)
    if len(pairs) < MIN_PAIRS:
        return None
    reset = _reset_layers(pairs)
    if not reset:
        return None
    layer = sorted(reset)[0]
    seen = reset[layer]
    steps = [step for step, _, _ in seen]
    kind = seen[-1][1]
    streams = pairs[-1][0][2]
    layout = "(T, B) sequence-first" if pairs[-1][0][1] == 0 else "(B, T) batch-first"
    lowest = min(share for _, _, share in seen)
    continuing = f"all {streams}" if lowest == 1 else f"{lowest:.0%} of the {streams}"
    return Finding(
        code="STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS", severity="warning", where=layer,
        step=steps[0],
        message=f"The training batches are consecutive windows of the same text: at steps "
                f"{', '.join(map(str, steps))}, {continuing} streams ({layout} ids) start "
                f"with the token the previous batch's window ended on (its last target). Yet "
                f"{layer} starts each of those windows from {RESET_KINDS[kind]} instead of "
                "the state the previous window ended with. Truncated backpropagation "
                "through time cuts only the gradient at a window's edge; reset there, the "
                "model loses what it carried at every border and never learns to use more "
                "than one window of context (the loss still falls; held-out text is "
                "predicted worse).",
        evidence={"layer": layer, "state": kind, "steps": steps, "streams": streams,
                  "continued_share": round(lowest, 3),
                  "states": {str(step): k for step, k, _ in seen}},
        fix="Hand the state on, detached: output, hidden = model(x, hidden); hidden = "
            "tuple(h.detach() for h in hidden) (hidden.detach() for a GRU/RNN) - both h and "
            "c of an LSTM - and start from None only at the start of each pass over the "
            "text. Keep the reset only if the windows are meant to be independent (then "
            "shuffle them).")
