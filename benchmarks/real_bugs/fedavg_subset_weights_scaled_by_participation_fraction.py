"""A hand-written FedAvg server with partial participation that adds each sampled client's
weights scaled by (clients per round) / (all clients) instead of 1 / (clients per round):
the aggregation weights sum to S^2 / N, which is 1 only for the configuration the code was
written with (10 of 100 clients there, 3 of 9 here). Sample more clients per round and
every aggregate is the average multiplied by S^2 / N (6 of 9 here: 36 / 9 = 4, the same
factor as the report's 20 of 100), so the global model's weights grow round after round
and the clients start every round from a model four times larger than the last one they
sent. Within a round the clients still train; nothing errors until the numbers overflow.

Reported: "Workers stop training if number of clients partificpating in every round is
changed from the default value" - https://github.com/ssg-research/WAFFLE/issues/6 (the
aggregation adds client_subset * param / num_clients for every participating client,
which weighs each client 0.1 by default but 0.2 with 20 clients of 100; the reporter
rewrites it to param / client_subset, and the maintainer confirms the bug, which leaves
the paper's default configuration unchanged but removes the NaN).
Here: the 8x8 digits split over 9 clients by label (two label-sorted shards each), 6
sampled at random every round, a 64-64-10 MLP, one client model object loaded with the
global weights at the start of every round, plain SGD.
Fix: weight each sampled client's model by 1 / (clients per round).

Measured (25 rounds x 6 of 9 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0):
held-out cross-entropy of the global model 7.8e27 for the bug against 0.82 for the fixed
twin (seeds shifted by 1000: 1.2e28 against 0.87): every round multiplies the aggregate by
4. Held-out accuracy is NOT harmed at this scale (0.84 against 0.81; shifted 0.79 against
0.78): a ReLU network's argmax survives a uniform scaling of its weights, its
probabilities do not (the report's runs went on to NaN).
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._fed183 import held_out_loss
from benchmarks.real_bugs._federated import accuracy, federated_digits, train_locally

TITLE = ("Workers stop training if number of clients partificpating in every round is "
         "changed from the default value")
LINK = "https://github.com/ssg-research/WAFFLE/issues/6"
EXPECTED = ("AVERAGE_WEIGHTS_NOT_NORMALISED",)
ROUNDS, CLIENTS, PER_ROUND, LOCAL_STEPS = 25, 9, 6, 10
STEPS = ROUNDS * PER_ROUND * LOCAL_STEPS
BATCH, LR = 32, 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    parts, (x_test, y_test) = federated_digits(CLIENTS, seed=0)
    rng = np.random.default_rng(0)
    global_model = mlp()
    client = mlp()
    optimizer = torch.optim.SGD(client.parameters(), lr=LR)
    # BUG (when not fixed): S / N per client, written for S * S == N
    share = 1 / PER_ROUND if fixed else PER_ROUND / CLIENTS
    done = 0
    with nd.watch(client, optimizer, **watch) as mon:
        while done < steps:
            updated = {key: torch.zeros_like(v)
                       for key, v in global_model.state_dict().items()}
            for k in rng.choice(CLIENTS, PER_ROUND, replace=False):
                x, y = parts[k]
                client.load_state_dict(global_model.state_dict())
                done += train_locally(mon, client, optimizer, x, y,
                                      min(LOCAL_STEPS, steps - done), BATCH, rng)
                state = copy.deepcopy(client.state_dict())
                for key in updated:
                    updated[key] += share * state[key]
                if done >= steps:
                    break
            global_model.load_state_dict(updated)
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    mon.held_out_loss = held_out_loss(global_model, x_test, y_test)
    return mon
