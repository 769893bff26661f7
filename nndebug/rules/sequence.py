"""Rules for sequence models: what padding and attention reveal about a run.

PADDING_NOT_MASKED reads ``run.observed.loss_calls``: for a cross-entropy (or NLL) loss the
monitor keeps the loss's ``ignore_index`` and ``reduction`` and a summary of a sample of the
target ids that reached it (``nndebug.monitor.target_ids``). Padding the loss does not
skip shows up as one id that is frequent, that sits in runs (the padded tails), while the
other ids do not, and that is not the loss's ``ignore_index``. It also reads
``run.observed.token_id_shares`` (``nndebug.monitor.token_id_shares``) for the inputs side
(real-bug batch 264): an ``nn.EmbeddingBag`` given padded 2-D rows without a
``padding_idx`` pools the padding with the words (mean, sum or max over every position), so
a short text's bag is mostly the padding vector. Seen as the commonest id of its first
training lookups, the same id each time, a share of the ids between PAD_MIN_SHARE and
BAG_PAD_SHARE_MAX, and (nearly) never between two other tokens: it only fills the rows'
tails (or heads). A declared ``padding_idx`` is left out of the bag and is not counted;
per-sample weights that zero the padding are not seen (a known limit).

ATTENTION_SATURATED reads how peaked attention rows are (``statistics.attention_peaks``),
measured on the output of ``nn.Softmax`` layers and, on torch, of softmax function calls
(``monitor/attention_capture.py``; minigrad's functional softmax is not seen): rows already
far from uniform in the first steps, before training could have sharpened them. A pretrained
model fine-tuned from step 0 may start with peaked attention for good reasons and is
flagged too: a known limit of judging the first steps.

HIDDEN_STATE_NOT_DETACHED reads ``run.observed.graph_nodes``: the number of operations in
the loss's graph on the first recorded steps (``monitor.graph_growth``). A fixed model
builds the same graph every step; one that grows at every step reaches back into earlier
batches. Only minigrad lets such a run go on silently: torch refuses the second backward
(and, with ``retain_graph=True``, the weights the optimizer changed in place).
"""
import statistics

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, fmt, observed_list
from .graph import rule
from .soft_target_padding import soft_target_calls   # real-bug batch 60

MIN_SAMPLED_CALLS = 2      # [design] loss calls with a target sample before judging
PAD_MIN_SHARE = 0.10       # [measured] padded zoo batches: 0.30-0.51 of the targets are padding;
                           # a pad share under a tenth costs the model little
PAD_MAX_SHARE = 0.90       # [design] above this nearly everything is one id: not padding
PAD_IN_RUNS = 0.80         # [measured] padded targets: 0.96-0.99 of the pad ids sit next to
                           # another; independent labels with share p: 1-(1-p)^2 (0.75 at 0.5)
OTHERS_IN_RUNS_MAX = 0.30  # [measured] token targets of the zoo's sequence cases: 0.0 (the
                           # next id differs); batches sorted by label put every id in runs (1.0)
MIN_CLASSES = 3            # [design] a vocabulary, not a binary label
PAD_IN_TAILS = 0.95        # [measured] (real-bug batch 89) where the whole (rows, positions)
                           # target was sampled, the pad id must sit in the runs that end or
                           # start the rows: 1.0 for padded tails; 0.11-0.18 for a tagger's
                           # frequent I- tag in unpadded windows (46% of the tags, 0.93 in
                           # runs, which the share and run tests alone took for padding). Then
                           # the other tags may repeat (I- tags: 0.58-0.61 in runs, over
                           # OTHERS_IN_RUNS_MAX)
BAG_PAD_INNER_MAX = 0.02   # [measured] (real-bug batch 264) share of the commonest id's
                           # occurrences lying between two other tokens: 0 for padded tails; a
                           # frequent real word falls inside rows ((L - 2) / L of it at length L)
BAG_PAD_SHARE_MAX = 0.98   # [design] a lookup (nearly) all one id is no padded batch: a flat
                           # stream of unknown ids reads as one whole row (UNKNOWN_ID_DOMINATES_INPUTS)
PAD_RUNS_BEYOND_CHANCE = 0.5   # [design] (core variants 4) the frequent id's runs must go at
                           # least half-way from what independent labels at its share give,
                           # 1 - (1 - share)^2, to every occurrence in a run: padded tails
                           # sit at 0.83-0.98 of that way (0.96-0.99 in runs at shares
                           # 0.3-0.5), a shuffled batch of a 70%-majority class near 0 (0.91
                           # in runs is what chance gives it)


def padding_calls(loss_calls):
    """The loss calls whose targets were summarised (class-index losses, integer targets)."""
    return [c for c in loss_calls if c.loss in CLASS_INDEX_LOSSES and c.target_integer
            and getattr(c, "target_mode_share", None) is not None]


def unmasked_padding(calls):
    """Evidence that an id the loss does not ignore is padding, or None."""
    if len(calls) < MIN_SAMPLED_CALLS:
        return None
    modes = [c.target_mode for c in calls]
    pad = max(set(modes), key=modes.count)
    calls = [c for c in calls if c.target_mode == pad]
    if len(calls) * 2 <= len(modes):
        return None                     # no id is the most frequent one in most batches
    first = calls[0]
    if first.reduction in (None, "none") or first.ignore_index is None:
        return None                     # per-token losses may be masked after the call
    if int(pad) == first.ignore_index:
        return None
    if len(first.output_shape) < 2 or first.output_shape[1] < MIN_CLASSES:
        return None
    share = statistics.median(c.target_mode_share for c in calls)
    in_runs = statistics.median(c.target_mode_in_runs for c in calls)
    others = statistics.median(c.target_others_in_runs for c in calls)
    tails = [getattr(c, "target_mode_in_tails", None) for c in calls]   # batch 89
    in_tails = None if None in tails else statistics.median(tails)
    if in_tails is not None and in_tails < PAD_IN_TAILS:
        return None                     # a frequent real tag inside the rows, no padded tails
    if not (PAD_MIN_SHARE <= share <= PAD_MAX_SHARE and in_runs >= PAD_IN_RUNS
            and (others <= OTHERS_IN_RUNS_MAX or in_tails is not None)):
        return None
    chance = 1.0 - (1.0 - share) ** 2      # a neighbour holds the id by chance alone
    if in_runs - chance < PAD_RUNS_BEYOND_CHANCE * (1.0 - chance):
        return None                        # an unbalanced class, not padded tails
    return {"pad_id": int(pad), "pad_share": share, "pad_in_runs": in_runs,
            "others_in_runs": others, "ignore_index": first.ignore_index, "loss": first.loss,
            "calls": len(calls), "steps": [c.step for c in calls]}


@rule(produces="PADDING_NOT_MASKED")
def padding_not_masked(ctx):
    observed = getattr(ctx.run, "observed", None)
    if observed is None:
        return None
    evidence = unmasked_padding(padding_calls(observed.loss_calls))
    if evidence is None:
        bag = pooled_padding(ctx)       # real-bug batch 264: padding averaged into bags
        if bag is not None:
            return bag
    soft = evidence is None   # smoothed (soft-target) losses: their rows' argmax (batch 60)
    if soft:
        evidence = unmasked_padding(soft_target_calls(getattr(observed, "soft_target_padding",
                                                              None) or []))
    if evidence is None:
        return None
    pad = evidence["pad_id"]
    if soft:
        return soft_padding_finding(evidence, pad)
    return Finding(
        code="PADDING_NOT_MASKED", severity="warning", where=evidence["loss"],
        step=evidence["steps"][0],
        message=(f"{fmt(100 * evidence['pad_share'])}% of the targets that reach "
                 f"{evidence['loss']} are id {pad}, in runs at the end of sequences (padding), "
                 f"and the loss does not ignore it (ignore_index={evidence['ignore_index']}): "
                 "the model is trained to predict padding and the loss partly measures that."),
        evidence=evidence,
        fix=(f"Give the loss the padding id: CrossEntropyLoss(ignore_index={pad}), or set "
             "padded targets to -100 (the default ignore_index)."))


def pooled_padding(ctx):
    """PADDING_NOT_MASKED for an nn.EmbeddingBag that pools undeclared padding (real-bug
    batch 264), or None."""
    bags = {layer.name for layer in ctx.run.layers if layer.type == "EmbeddingBag"}
    by_layer = {}
    for row in observed_list(ctx, "token_id_shares"):
        if row[1] in bags:
            by_layer.setdefault(row[1], []).append(row)
    for layer, seen in by_layer.items():
        ids = {row[2] for row in seen}
        shares = [row[3] for row in seen]
        if len(seen) < MIN_SAMPLED_CALLS or len(ids) != 1 or min(shares) < PAD_MIN_SHARE \
                or max(shares) > BAG_PAD_SHARE_MAX \
                or max(row[4] for row in seen) > BAG_PAD_INNER_MAX:
            continue
        pad = ids.pop()
        share = statistics.median(shares)
        return Finding(
            code="PADDING_NOT_MASKED", severity="warning", where=layer, step=seen[0][0],
            message=(f"{fmt(100 * share)}% of the ids {layer} (an EmbeddingBag) pools are id "
                     f"{pad}, every one of them in the padded ends of the rows, and the bag "
                     "has no padding_idx: the padding is averaged (or summed) into every bag "
                     "with the words, so a short text's bag is mostly the padding vector and "
                     "what the model reads depends on how much each text was padded."),
            evidence={"pad_id": int(pad), "pad_share": share, "layer": layer,
                      "lookups": len(seen), "inside_rows": max(row[4] for row in seen),
                      "steps": [row[0] for row in seen]},
            fix=(f"Declare the padding: nn.EmbeddingBag(..., padding_idx={pad}) leaves it out "
                 "of the bag (the mean divides by the real words), or pass the unpadded ids "
                 "as one flat tensor with offsets."))
    return None


def soft_padding_finding(evidence, pad):
    """PADDING_NOT_MASKED for a smoothed (soft-target) loss (real-bug batch 60)."""
    return Finding(
        code="PADDING_NOT_MASKED", severity="warning", where=evidence["loss"],
        step=evidence["steps"][0],
        message=(f"{fmt(100 * evidence['pad_share'])}% of the soft target rows that reach "
                 f"{evidence['loss']} point at id {pad} (their largest entry), in runs at the "
                 "end of sequences (padding): the label-smoothing loss scores the padded "
                 "positions like real tokens, so the model is trained to predict padding and "
                 "the loss partly measures that."),
        evidence={**evidence, "soft_targets": True},
        fix=(f"Drop the positions whose target is {pad} from the smoothed loss (mask them and "
             "divide by the real tokens), or use F.cross_entropy(logits, ids, "
             f"ignore_index={pad}, label_smoothing=eps)."))


# --- attention that starts out peaked ----------------------------------------------------------
EARLY_STEPS = 2            # [design] steps 0..2: before training could have sharpened attention
PEAK_AT_START = 0.40       # [measured] attention_peak (0 uniform, 1 one-hot) at steps 0-2 of a
                           # one-block GPT on the counting task: scaled q.k/sqrt(d) 0.08-0.11 for
                           # head dims 8-128; unscaled 0.57-0.74 for head dims 32-128 (0.24 at 8,
                           # 0.36 at 16: a small head dim hides the missing scale)


def peaked_attention(records):
    """``{layer: (median attention_peak over the early records, steps)}`` for softmax layers
    whose early attention rows are far from uniform."""
    early = [r for r in records if r.step <= EARLY_STEPS]
    peaks = {}
    for record in early:
        for layer, stats in record.activations.items():
            value = stats.get("attention_peak")
            if value is not None and value == value:          # not NaN
                peaks.setdefault(layer, []).append((record.step, value))
    found = {}
    for layer, seen in peaks.items():
        median = statistics.median(v for _, v in seen)
        if median >= PEAK_AT_START:
            found[layer] = (median, [s for s, _ in seen])
    return found


@rule(produces="ATTENTION_SATURATED")
def attention_saturated(ctx):
    """ATTENTION_SATURATED: attention rows that put all their weight on one position from the
    start (logits too large: a missing scale)."""
    found = peaked_attention(ctx.all_records)
    if not found:
        return None
    layer, (peak, steps) = max(found.items(), key=lambda item: item[1][0])
    later = [r.activations[layer].get("attention_one_hot") for r in ctx.all_records
             if layer in r.activations]
    later = [v for v in later if v is not None and v == v]
    one_hot = later[-1] if later else float("nan")
    return Finding(
        code="ATTENTION_SATURATED", severity="warning", where=layer, step=steps[0],
        message=(f"The attention weights of {layer} are sharply peaked from the first steps "
                 f"(peak {fmt(peak)} on a scale where 0 is uniform and 1 one-hot; freshly "
                 f"initialised attention with scaled logits starts near 0), and "
                 f"{fmt(100 * one_hot)}% of its rows are near one-hot at the last recorded "
                 "step: the softmax saturates (a near one-hot row passes almost no gradient "
                 "to the queries and keys). The usual cause: logits q.k not divided by "
                 "sqrt(head dim)."),
        evidence={"attention_peak_at_start": peak, "steps": steps,
                  "one_hot_share_last": one_hot, "threshold": PEAK_AT_START,
                  "layers": sorted(found)},
        fix=("Scale the attention logits: scores = q @ k.transpose(-2, -1) / sqrt(head_dim) "
             "(F.scaled_dot_product_attention does it); if they are scaled, check the "
             "initialisation of the query/key projections."))


# --- a graph that grows from step to step ------------------------------------------------------
MIN_GRAPH_STEPS = 4        # [design] steps whose loss graph was measured, before judging
GRAPH_GROWTH = 3.0         # [measured] LSTM zoo pair over 12 steps: 75 -> 878 operations when the
                           # state is carried undetached (one chunk more each step), 75 every
                           # step when it is detached; any fixed model builds the same graph
RECURRENT_TYPES = {"RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"}


def growing_graph(graph_nodes):
    """Evidence when the loss's graph grows at every measured step, else None."""
    if len(graph_nodes) < MIN_GRAPH_STEPS:
        return None
    steps = [s for s, _ in graph_nodes]
    nodes = [n for _, n in graph_nodes]
    if any(b <= a for a, b in zip(nodes, nodes[1:])) or nodes[-1] < GRAPH_GROWTH * nodes[0]:
        return None
    return {"steps": steps, "graph_nodes": nodes, "growth": nodes[-1] / nodes[0]}


@rule(produces="HIDDEN_STATE_NOT_DETACHED")
def hidden_state_not_detached(ctx):
    """HIDDEN_STATE_NOT_DETACHED: a recurrent state carried from batch to batch without detach(),
    so each backward runs through every earlier batch."""
    observed = getattr(ctx.run, "observed", None)
    evidence = growing_graph(getattr(observed, "graph_nodes", []) if observed else [])
    if evidence is None:
        return None
    recurrent = [layer.name for layer in ctx.run.layers if layer.type in RECURRENT_TYPES]
    nodes, steps = evidence["graph_nodes"], evidence["steps"]
    return Finding(
        code="HIDDEN_STATE_NOT_DETACHED", severity="error",
        where=recurrent[0] if recurrent else "", step=steps[1],
        message=(f"The graph behind the loss grows every step ({nodes[0]} operations at step "
                 f"{steps[0]}, {nodes[-1]} at step {steps[-1]}): each backward runs through the "
                 "batches before it too, so steps get slower and slower and the gradients mix "
                 "in old batches. Usually a recurrent state (an RNN/LSTM hidden state) carried "
                 "to the next batch without .detach()."),
        evidence=evidence,
        fix=("Detach what is carried between batches: hidden = hidden.detach() (for an LSTM, "
             "(h.detach(), c.detach())) before the next forward; never backward(retain_graph="
             "True) to get past torch's 'backward through the graph a second time' error."))
