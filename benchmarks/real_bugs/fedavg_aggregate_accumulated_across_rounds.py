"""A hand-written FedAvg server whose aggregate is an accumulator created once, before the
first round, and never cleared: each round adds the sample-weighted client models onto
whatever the accumulator already holds, so the "new" global model of round r is the sum
of the averages of rounds 1..r. After round 2 every weight is about twice what the clients
sent, after round 3 three times, and the clients start every round from a model with
ever larger weights: their losses jump at each round's start and the global model gets
worse round after round. The clients' losses still fall within each round; nothing errors.

Reported: "fix: fedavg algo" - https://github.com/cisco-open/flame/pull/95 (flame's FedAvg
optimizer did not reset the previous global weights before computing the new ones in each
round, which made the loss value increase over rounds; the fix resets the aggregate at the
start of every round's aggregation).
Here: the 8x8 digits split over 5 clients by label (two label-sorted shards each), a
64-64-10 MLP, one client model object loaded with the global weights at the start of
every round, plain SGD, every client in every round, weights by sample counts.
Fix: start the aggregate from zero in every round.

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the global model 0.70 for the bug against 0.79 for the fixed twin, held-out
cross-entropy 5.4e6 against 1.19 (seeds shifted by 1000: accuracy 0.71 against 0.80,
cross-entropy 4.9e6 against 1.22). The argmax survives part of the blow-up (a ReLU
network's outputs scale with its weights); its probabilities do not.
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._fed183 import held_out_loss
from benchmarks.real_bugs._federated import accuracy, federated_digits, train_locally

TITLE = "fix: fedavg algo"
LINK = "https://github.com/cisco-open/flame/pull/95"
EXPECTED = ("AGGREGATE_ACCUMULATES_ACROSS_ROUNDS",)
ROUNDS, CLIENTS, LOCAL_STEPS = 15, 5, 10
STEPS = ROUNDS * CLIENTS * LOCAL_STEPS
BATCH, LR = 32, 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    parts, (x_test, y_test) = federated_digits(CLIENTS, seed=0)
    rng = np.random.default_rng(0)
    global_model = mlp()
    client = mlp()
    optimizer = torch.optim.SGD(client.parameters(), lr=LR)
    total = float(sum(len(x) for x, _ in parts))
    aggregate = {key: torch.zeros_like(v) for key, v in global_model.state_dict().items()}
    done = 0
    with nd.watch(client, optimizer, **watch) as mon:
        while done < steps:
            if fixed:                   # BUG (when not fixed): the sum is never cleared
                aggregate = {key: torch.zeros_like(v) for key, v in aggregate.items()}
            for x, y in parts:
                client.load_state_dict(global_model.state_dict())
                done += train_locally(mon, client, optimizer, x, y,
                                      min(LOCAL_STEPS, steps - done), BATCH, rng)
                state = copy.deepcopy(client.state_dict())
                for key in aggregate:
                    aggregate[key] += state[key] * (len(x) / total)
                if done >= steps:
                    break
            global_model.load_state_dict(aggregate)
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    mon.held_out_loss = held_out_loss(global_model, x_test, y_test)
    return mon
