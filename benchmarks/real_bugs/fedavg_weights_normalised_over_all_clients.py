"""A hand-written FedAvg server with partial participation that weights each selected
client's model by its share of the data of ALL clients, not of the selected ones: every
client trains and reports its sample count, the server sums those counts over everyone,
then averages only the sampled clients with weights n_k / n_all. The weights add up to
the sampled fraction of the data (about 3/5 here), so every round the aggregate is the
average shrunk towards zero; the clients start each round from a shrunken model and the
global model never gets anywhere. The clients' losses fall within a round; nothing errors.

Reported: "convergence about the connection_rate" -
https://github.com/rruisong/pytorch_federated_learning/issues/4 (FedAvg on MNIST converges
with every client connected but not with connection rates of 0.5, 0.2 or 0.1; the user
points at the main loop, which trains every client, and the maintainer fixes it by
recalibrating the total number of data points over the selected clients only, PR #5).
Here: the 8x8 digits split over 5 clients by label (two label-sorted shards each), 3
clients sampled per round, a 64-64-10 MLP, one client model object, plain SGD.
Fix: normalise the aggregation weights by the data of the clients being averaged.

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the global model 0.09 for the bug (chance), 0.60 for the fixed twin (seeds
shifted by 1000: 0.08 against 0.50; partial participation on label-split clients is slow
at 15 rounds, but it learns).
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._federated import accuracy, federated_digits, train_locally

TITLE = "convergence about the connection_rate"
LINK = "https://github.com/rruisong/pytorch_federated_learning/issues/4"
EXPECTED = ("AVERAGE_WEIGHTS_NOT_NORMALISED",)
ROUNDS, CLIENTS, SELECTED, LOCAL_STEPS = 15, 5, 3, 10
STEPS = ROUNDS * CLIENTS * LOCAL_STEPS
BATCH, LR = 32, 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    parts, (x_test, y_test) = federated_digits(CLIENTS, seed=0)
    rng = np.random.default_rng(0)
    global_model = mlp()
    client = mlp()
    optimizer = torch.optim.SGD(client.parameters(), lr=LR)
    done = 0
    with nd.watch(client, optimizer, **watch) as mon:
        while done < steps:
            states, sizes = {}, {}
            for k, (x, y) in enumerate(parts):
                client.load_state_dict(global_model.state_dict())
                done += train_locally(mon, client, optimizer, x, y,
                                      min(LOCAL_STEPS, steps - done), BATCH, rng)
                states[k] = copy.deepcopy(client.state_dict())
                sizes[k] = len(x)
                if done >= steps:
                    break
            selected = [k for k in rng.permutation(CLIENTS)[:SELECTED] if k in states]
            if fixed:
                total = sum(sizes[k] for k in selected)
            else:
                total = sum(sizes.values())     # BUG: every client's data, not the selected
            merged = {key: sum(states[k][key] * (sizes[k] / total) for k in selected)
                      for key in global_model.state_dict()}
            global_model.load_state_dict(merged)
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    return mon
