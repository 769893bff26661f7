"""A hand-written FedAvg server that builds the new global model as a deep copy of the
FIRST uploaded client model and then overwrites its ``parameters()`` with the weighted
average of every client's: BatchNorm's running mean and variance are buffers, not
parameters, so the global model keeps the statistics of that one client - measured on its
own couple of digit classes - under weights averaged over everybody. The clients train in
train mode on batch statistics and their losses fall; the global model, evaluated in eval
mode, normalises every digit with one client's statistics. Nothing errors.

Reported: "BUG in aggregate（Important）" - https://github.com/TsingZ0/PFLlib/issues/84
(the aggregation starts from ``copy.deepcopy(self.uploaded_models[0])`` and averages only
``param.data``, so the BN layer's running_mean, running_var and num_batches_tracked are
never aggregated and each round come from one client: with a client holding little or
skewed data the model degrades and training becomes unstable or does not converge; the
reporter asks to aggregate over the state_dict. The maintainer answers that the statistics
are left local on purpose and that PFLlib evaluates the clients' models, not the server's
copy; the same defect was filed again as PFLlib#260, and an open pull request, PFLlib#269,
averages the floating-point buffers. Any loop that evaluates or ships that global model
gets one client's statistics.)
Here: the 8x8 digits (pixels in [0, 1]) split over 5 clients by label (two label-sorted
shards each), a 64-64-64-10 MLP with BatchNorm after each hidden linear layer, one client
model object that starts every round from the global parameters and its own BatchNorm
statistics (as PFLlib's clients do), plain SGD, FedAvg weighted by sample counts.
Fix: average the whole state_dict (the floating-point buffers too).

Measured (15 rounds x 5 clients x 10 local SGD steps, batch 32, lr 0.1, seed 0): held-out
accuracy of the global model (eval mode) 0.81 for the bug against 0.90 for the fixed twin,
held-out cross-entropy 0.75 against 0.61 (seeds shifted by 1000: accuracy 0.85 against
0.88, cross-entropy 0.63 against 0.67; at shifts 2000-5000 the bug's accuracy stays
0.05-0.10 below the twin's).
"""
import copy

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._fed183 import held_out_loss
from benchmarks.real_bugs._federated import accuracy, average, federated_digits, train_locally

TITLE = "BUG in aggregate（Important）"
LINK = "https://github.com/TsingZ0/PFLlib/issues/84"
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
    buffers = {}                    # each client's own BatchNorm statistics, kept locally
    done = 0
    with nd.watch(client, optimizer, **watch) as mon:
        while done < steps:
            states, sizes = [], []
            for k, (x, y) in enumerate(parts):
                # the client receives the global parameters and keeps its own buffers
                start = global_model.state_dict()
                start.update(buffers.get(k, {}))
                client.load_state_dict(start)
                done += train_locally(mon, client, optimizer, x, y,
                                      min(LOCAL_STEPS, steps - done), BATCH, rng)
                states.append(copy.deepcopy(client.state_dict()))
                sizes.append(len(x))
                buffers[k] = {name: b.clone() for name, b in client.named_buffers()}
                if done >= steps:
                    break
            merged = average(states, sizes)
            if fixed:
                global_model.load_state_dict(merged)
            else:           # BUG: the first client's copy, only its parameters averaged
                global_model.load_state_dict(states[0])
                with torch.no_grad():
                    for name, parameter in global_model.named_parameters():
                        parameter.copy_(merged[name])
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    mon.held_out_loss = held_out_loss(global_model, x_test, y_test)
    return mon
