"""A hand-written FedAvg loop that computes the averaged weights every round but does not
load them into the global model until training is over: each round the clients copy the
global model - still at its random initialisation - train on their own digits, and the
server averages their weights into a dictionary that only reaches the global model after
the last round. Every round starts from scratch, so the final global model is the average
of one round of local training from random weights. The local losses fall every round;
nothing errors.

Reported: "Solution for the global test accuracy of the FedAvg/FedMD consistently hovers
around 10%, which seems to deviate from the results reported in the paper." -
https://github.com/CityChan/Federated-Hyper-Knowledge-Distillation/issues/2 (the global
test accuracy stays near chance; the user adds loading the averaged weights into the
global model before the global test, and the author confirms that in the original code the
global model was not updated until training completed and moves the load right after the
averaging). Here: the 8x8 digits split over 5 clients by label (two label-sorted shards
each), a 64-64-10 MLP, one client model object the loop loads the global weights into,
plain SGD.
Fix: load the averaged weights into the global model right after averaging, every round.

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the final global model 0.17 for the bug, 0.79 for the fixed twin (seeds shifted
by 1000: 0.08 against 0.80).
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._federated import accuracy, average, federated_digits, train_locally

TITLE = ("Solution for the global test accuracy of the FedAvg/FedMD consistently hovers "
         "around 10%, which seems to deviate from the results reported in the paper.")
LINK = "https://github.com/CityChan/Federated-Hyper-Knowledge-Distillation/issues/2"
EXPECTED = ("AGGREGATE_NEVER_LOADED",)
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
            global_weights = average(states, sizes)
            if fixed:
                global_model.load_state_dict(global_weights)
        global_model.load_state_dict(global_weights)   # BUG: the only load, after training
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    return mon
