"""A hand-written FedAvg server that averages the client models with equal weights,
though the clients hold very different amounts of data: FedAvg weights client k by
n_k / n, and a plain mean gives a client with 60 digits of two classes as much say as one
with a thousand digits of every class. The global model is pulled towards the small
clients' narrow label sets every round and loses the classes only the large client holds.
The clients' local losses fall; nothing errors.

Reported: "About the implementation of Fed.py" -
https://github.com/shaoxiongji/federated-learning/issues/41 (the repository's FedAvg
averages the client weights w[i] with a plain mean, which the reporter calls wrong when the
data is non-IID and the clients' sample counts differ, and rewrites it to multiply each
client's weights by its number of samples and divide by their sum; a second user agrees
the code only holds when every client has the same amount of data).
Here: the 8x8 digits with one large client (every class, about 1,160 digits) and four
small ones (60 digits each, classes 0-1, 2-3, 4-5 and 6-7), a 64-64-10 MLP, one client
model object loaded with the global weights at the start of every round, plain SGD, every
client in every round.
Fix: weight each client's model by its sample count over the total.

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the global model 0.74 for the bug against 0.88 for the fixed twin, held-out
cross-entropy 1.27 against 0.74 (seeds shifted by 1000: accuracy 0.76 against 0.91,
cross-entropy 1.22 against 0.74).
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._fed183 import held_out_loss, unequal_digits
from benchmarks.real_bugs._federated import accuracy, average, train_locally

TITLE = "About the implementation of Fed.py"
LINK = "https://github.com/shaoxiongji/federated-learning/issues/41"
EXPECTED = ("AVERAGE_IGNORES_SAMPLE_COUNTS",)
ROUNDS, CLIENTS, LOCAL_STEPS = 15, 5, 10
STEPS = ROUNDS * CLIENTS * LOCAL_STEPS
BATCH, LR = 32, 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    parts, (x_test, y_test) = unequal_digits(CLIENTS - 1, seed=0)
    rng = np.random.default_rng(0)
    global_model = mlp()
    client = mlp()
    optimizer = torch.optim.SGD(client.parameters(), lr=LR)
    done = 0
    with nd.watch(client, optimizer, **watch) as mon:
        while done < steps:
            states, sizes = [], []
            for x, y in parts:
                client.load_state_dict(global_model.state_dict())
                done += train_locally(mon, client, optimizer, x, y,
                                      min(LOCAL_STEPS, steps - done), BATCH, rng)
                states.append(copy.deepcopy(client.state_dict()))
                sizes.append(len(x))
                if done >= steps:
                    break
            # BUG (when not fixed): every client counted once, whatever its data
            weights = sizes if fixed else [1] * len(states)
            global_model.load_state_dict(average(states, weights))
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    mon.held_out_loss = held_out_loss(global_model, x_test, y_test)
    return mon
