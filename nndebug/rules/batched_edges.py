"""BATCHED_EDGES_NOT_OFFSET: several graphs batched into one, their node rows stacked, but
their senders and receivers left counting from 0 - every edge joins rows of the first graph.

Read from ``run.observed.scattered_messages`` (``monitor/scattered_messages.py``): the
model gathers messages by index from a tensor of ``rows`` node rows and scatters them by
index into the same rows, and on every measured step the highest sender and the highest
receiver both stay within a first block of at most ``EDGE_BLOCK_SHARE`` of the rows. A
graph's own indices reach its last nodes; a batch whose every edge, on step after step,
stays inside the first few rows is one graph's indices reused for all of them: the other
graphs' nodes receive nothing and are classified from their own features alone.

Healthy look-alikes left silent: a neighbour-sampled batch whose target nodes come first
(the receivers are a first block, the senders reach every row); a single graph; isolated or
padding nodes scattered among the rows or fewer than half of them (a padding budget more
than twice the real nodes would look like this and is the one case the rule cannot tell
apart; the finding says so). Named whatever the curve says: the nodes of the first graph
still learn, so the loss falls.

Public report: "GraphTuple from batched tensors does not offset Senders/Receivers",
https://github.com/google-deepmind/graph_nets/issues/135.
"""
from ..findings import Finding
from .context import fmt, observed_list
from .graph import rule

EDGE_BLOCK_SHARE = 0.5      # [design] every sender and receiver within the first half of the
                            # rows: a batch of k graphs whose indices were not offset reaches
                            # 1/k of them (1/16 on the case); one graph's own edges reach its
                            # last rows
MIN_MEASURED_STEPS = 2      # [design] steps measured before a verdict (different batches)


@rule(produces="BATCHED_EDGES_NOT_OFFSET",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def batched_edges_not_offset(ctx):
    rows = observed_list(ctx, "scattered_messages")
    steps = {row[0] for row in rows}
    if len(steps) < MIN_MEASURED_STEPS:
        return None
    block = [row for row in rows
             if max(row[3], row[4]) <= EDGE_BLOCK_SHARE * row[1]]
    if {row[0] for row in block} != steps:
        return None
    step, nodes, messages, senders, receivers = max(block, key=lambda row: row[1] /
                                                    max(row[3], row[4]))
    reached = max(senders, receivers)
    return Finding(
        code="BATCHED_EDGES_NOT_OFFSET", severity="warning", where="model forward", step=step,
        message=f"The model gathers and scatters messages by index over {nodes} node rows, "
                f"but on every step measured all {messages} messages run between the first "
                f"{reached} rows only ({fmt(100 * reached / nodes)}% of them): the edge lists "
                "of a batch of graphs were concatenated without moving each graph's senders "
                "and receivers past the nodes stacked before it, so every edge joins nodes "
                "of the FIRST graph and the other graphs' nodes receive no message. (A batch "
                "padded with more empty nodes than real ones would look the same.)",
        evidence={"rows": nodes, "messages": messages, "highest_sender": senders - 1,
                  "highest_receiver": receivers - 1, "steps": sorted(steps)},
        fix="Offset each graph's edge indices by the number of nodes stacked before it "
            "(senders + offsets, receivers + offsets, offsets the cumulative sum of the "
            "graphs' node counts), or batch with a library collate that does (PyG's Batch, "
            "DGL's dgl.batch, graph_nets' utils_tf.concat).")
