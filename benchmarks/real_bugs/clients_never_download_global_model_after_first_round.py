"""A hand-written FedAvg simulation whose clients fetch the server's model only once: a
client downloads the global weights when it has no model of its own yet, and from the
second round on it resumes from the weights it trained itself last round. The server
still averages what the clients send back, but no client ever starts from that average
again, so each client keeps fitting its own couple of digit classes and the global model
is an average of five drifting specialists. The local losses fall; nothing errors.

Reported: "Clients won't download server model under the global evaluation" -
https://github.com/vaseline555/Federated-Learning-in-PyTorch/issues/18 (the request that
hands a client the server's model is skipped whenever the client already holds a model,
so after the first round no sampled client receives the global model; a second user
confirms the same from the second round on). Here: the 8x8 digits split over 5 clients
by label (two label-sorted shards each), a 64-64-10 MLP, one client model object the loop
loads each client's starting weights into, plain SGD.
Fix: load the server's current global weights into the client at the start of every
round, for every client.

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the global model 0.57 for the bug, 0.79 for the fixed twin (seeds shifted
by 1000: 0.15 against 0.80).
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._federated import accuracy, average, federated_digits, train_locally

TITLE = "Clients won't download server model under the global evaluation"
LINK = "https://github.com/vaseline555/Federated-Learning-in-PyTorch/issues/18"
EXPECTED = ("CLIENTS_NOT_SYNCED",)
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
    own = {}                        # what each client kept after its last local training
    done = 0
    with nd.watch(client, optimizer, **watch) as mon:
        while done < steps:
            states, sizes = [], []
            for k, (x, y) in enumerate(parts):
                if fixed or k not in own:
                    client.load_state_dict(global_model.state_dict())
                else:
                    client.load_state_dict(own[k])    # BUG: the global model is not fetched
                done += train_locally(mon, client, optimizer, x, y,
                                      min(LOCAL_STEPS, steps - done), BATCH, rng)
                own[k] = copy.deepcopy(client.state_dict())
                states.append(own[k])
                sizes.append(len(x))
                if done >= steps:
                    break
            global_model.load_state_dict(average(states, sizes))
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    return mon
