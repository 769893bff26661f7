"""A hand-written FedAvg server that aggregates the clients' ``model.parameters()`` only:
BatchNorm's running mean and variance are buffers, not parameters, so the global model's
statistics are never averaged and stay at their initial 0 and 1 while its weights are
averaged every round (and every client starts each round from those reset statistics).
The clients train in train mode on batch statistics and their losses fall; the global
model is evaluated in eval mode with statistics that describe no data. Nothing errors.

Reported: "BatchNorm params not being collected / averaged properly across clients" -
https://github.com/SymbioticLab/FedScale/issues/57 (the aggregation walks
``model.parameters()``, which leaves out ``running_mean``, ``running_var`` and
``num_batches_tracked``; the reporter struggles to get FEMNIST to a decent accuracy and
suggests aggregating the state_dict; the maintainers confirm they had fixed it in another
project and forgot here). Here: the 8x8 digits (pixels in [0, 1]) split over 5 clients by
label (two label-sorted shards each), a 64-64-64-10 MLP with
BatchNorm after each hidden linear layer, one client model object, plain SGD.
Fix: average the whole state_dict (floating-point buffers included).

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the global model (eval mode) 0.36 for the bug, 0.90 for the fixed twin
(seeds shifted by 1000: 0.53 against 0.88).
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._federated import accuracy, average, federated_digits, train_locally

TITLE = "BatchNorm params not being collected / averaged properly across clients"
LINK = "https://github.com/SymbioticLab/FedScale/issues/57"
EXPECTED = ("AVERAGED_COPY_BUFFERS_STALE",)
ROUNDS, CLIENTS, LOCAL_STEPS = 15, 5, 10
STEPS = ROUNDS * CLIENTS * LOCAL_STEPS
BATCH, LR = 32, 0.1


def net():
    return torch.nn.Sequential(
        torch.nn.Linear(64, 64), torch.nn.BatchNorm1d(64), torch.nn.ReLU(),
        torch.nn.Linear(64, 64), torch.nn.BatchNorm1d(64), torch.nn.ReLU(),
        torch.nn.Linear(64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    parts, (x_test, y_test) = federated_digits(CLIENTS, seed=0)
    rng = np.random.default_rng(0)
    global_model = net()
    client = net()
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
            merged = average(states, sizes)
            if fixed:
                global_model.load_state_dict(merged)
            else:                               # BUG: parameters only, buffers left behind
                with torch.no_grad():
                    for name, parameter in global_model.named_parameters():
                        parameter.copy_(merged[name])
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    return mon
