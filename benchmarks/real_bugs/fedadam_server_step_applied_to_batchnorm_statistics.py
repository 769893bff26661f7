"""A hand-written FedAdam server (FedOpt: the weighted average of the client models minus
the global model is a pseudo-gradient, and an Adam step on the server applies it) that
steps EVERY floating-point entry of the state_dict - BatchNorm's running means and
variances included - as if they were weights. Adam moves each entry by about eta per
round whatever its scale and its distance to the clients' value, so the global model's
running statistics crawl from their initial 0 and 1 towards what the clients measure
(running variances near 0.02 here), lag far behind it, and can overshoot below zero (the
report's NaN). The global model, evaluated in eval mode, normalises with statistics that
describe no data. The clients train in train mode on batch statistics, so their losses
fall and stay finite; nothing errors.

Reported: "FedOpt strategies: Central model gives NaN after second aggregation" -
https://github.com/flwrlabs/flower/issues/1060 (with FedAdam/FedYogi the central model's
evaluation gives NaN from the second round on although the aggregated weights are finite;
the reporter finds it comes from the BatchNorm entries and that leaving the "bn" entries
out of the server's aggregation makes it work; the maintainers suspect BatchNorm and
suggest GroupNorm meanwhile. The same failure - negative BatchNorm variance estimates
after FedAdam aggregation - was fixed in FL4Health#39, and NVFlare#1851 lets its FedOpt
server step only the trainable parameters and average the BatchNorm statistics.)
Here: the 8x8 digits (pixels in [0, 1]) split over 5 clients by label (two label-sorted
shards each), a 64-64-64-10 MLP with BatchNorm after each hidden linear layer, one client
model object loaded with the global state_dict every round, plain SGD on the clients, a
FedAdam server (eta 0.01, betas 0.9/0.99, tau 1e-3), FedAvg weights by sample counts.
Fix: the server's Adam step for the parameters only; the BatchNorm statistics take the
clients' weighted average.

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the global model (eval mode) 0.86 for the bug against 0.90 for the fixed twin,
held-out cross-entropy 1.22 against 0.37 (seeds shifted by 1000: accuracy 0.52 against
0.86, cross-entropy 1.43 against 0.42); the bug's smallest running variance is still 0.72
after 15 rounds where the twin's is 0.02.
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._fed183 import held_out_loss
from benchmarks.real_bugs._federated import accuracy, average, federated_digits, train_locally

TITLE = "FedOpt strategies: Central model gives NaN after second aggregation"
LINK = "https://github.com/flwrlabs/flower/issues/1060"
EXPECTED = ("SERVER_OPTIMIZER_STEPS_NORM_STATISTICS",)
ROUNDS, CLIENTS, LOCAL_STEPS = 15, 5, 10
STEPS = ROUNDS * CLIENTS * LOCAL_STEPS
BATCH, LR = 32, 0.1
ETA, BETA1, BETA2, TAU = 0.01, 0.9, 0.99, 1e-3     # server Adam (FedOpt paper's ranges)


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
    parameters = {name for name, _ in global_model.named_parameters()}
    first, second = {}, {}          # the server's Adam moments, entry by entry
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
            new = {}
            for key, current in global_model.state_dict().items():
                # BUG (when not fixed): the Adam step for every float entry, buffers too
                stepped = key in parameters if fixed else current.is_floating_point()
                if not stepped:
                    new[key] = merged[key]
                    continue
                delta = merged[key] - current
                first[key] = BETA1 * first.get(key, 0) + (1 - BETA1) * delta
                second[key] = BETA2 * second.get(key, 0) + (1 - BETA2) * delta ** 2
                new[key] = current + ETA * first[key] / (second[key].sqrt() + TAU)
            global_model.load_state_dict(new)
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    mon.held_out_loss = held_out_loss(global_model, x_test, y_test)
    return mon
