"""A hand-written SCAFFOLD client that updates its control variate with the number of
local EPOCHS where the algorithm asks for the number of local optimizer STEPS: option II
of SCAFFOLD sets c_i+ = c_i - c + (x - y_i) / (K * lr), K the local steps taken; dividing
by E * lr instead (E epochs of several batches each) makes every control variate - and so
the correction c - c_i added to each local gradient - as many times too large as an epoch
has batches. The drift correction overshoots and keeps growing round after round; the
global model's accuracy collapses. Nothing errors.

Reported: "there maybe a mistake in client.py during updating local control variate" -
https://github.com/ki-ljl/Scaffold-Federated-Learning/issues/1 (the update divides the
model change by E * lr, while K in the paper's option II is the number of local update
steps, E * L / B; the author agrees and corrects it to local_steps = E * len(loader)).
Here: the 8x8 digits split over 5 clients by label (two label-sorted shards each), a
64-64-10 MLP, one client model object, one local epoch of 8 batches of 32 per client and
round, the SCAFFOLD correction added to the gradient before a plain SGD step, server
step size 1, every client in every round.
Fix: divide by the number of local steps actually taken (epochs x batches per epoch).

Measured (20 rounds x 5 clients x 8 local steps, lr 0.05, seed 0): held-out accuracy of
the global model 0.12 for the bug, 0.78 for the fixed twin (seeds shifted by 1000: 0.11
against 0.83); the bug's loss diverges within a few rounds.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._federated import accuracy, federated_digits

TITLE = "there maybe a mistake in client.py during updating local control variate"
LINK = "https://github.com/ki-ljl/Scaffold-Federated-Learning/issues/1"
EXPECTED = ("CONTROL_VARIATES_MISSCALED",)
ROUNDS, CLIENTS, EPOCHS = 20, 5, 1
BATCH, LR = 32, 0.05
BATCHES_PER_EPOCH = 8           # every client holds 279-280 digits: 8 full batches of 32
STEPS = ROUNDS * CLIENTS * EPOCHS * BATCHES_PER_EPOCH


def zeros_like(model):
    return {name: torch.zeros_like(p) for name, p in model.named_parameters()}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    parts, (x_test, y_test) = federated_digits(CLIENTS, seed=0)
    rng = np.random.default_rng(0)
    global_model = mlp()
    client = mlp()
    optimizer = torch.optim.SGD(client.parameters(), lr=LR)
    server_control = zeros_like(global_model)
    client_controls = [zeros_like(global_model) for _ in parts]
    done = 0
    with nd.watch(client, optimizer, **watch) as mon:
        while done < steps:
            start = {k: v.clone() for k, v in global_model.state_dict().items()}
            deltas, control_deltas = [], []
            for k, (x, y) in enumerate(parts):
                client.load_state_dict(start)
                local_steps = 0
                for _ in range(EPOCHS):
                    order = torch.from_numpy(rng.permutation(len(x)))
                    for b in range(BATCHES_PER_EPOCH):
                        if done >= steps:
                            break
                        index = order[b * BATCH:(b + 1) * BATCH]
                        optimizer.zero_grad()
                        loss = torch.nn.functional.cross_entropy(client(x[index]), y[index])
                        loss.backward()
                        for name, p in client.named_parameters():     # drift correction
                            p.grad += server_control[name] - client_controls[k][name]
                        optimizer.step()
                        mon.step(loss)
                        done += 1
                        local_steps += 1
                if local_steps == 0:
                    break
                # BUG: divided by the epochs (x lr), not the local steps taken (x lr)
                divisor = (local_steps if fixed else EPOCHS) * LR
                new_control, delta, control_delta = {}, {}, {}
                for name, p in client.named_parameters():
                    new_control[name] = (client_controls[k][name] - server_control[name]
                                         + (start[name] - p.detach()) / divisor)
                    delta[name] = p.detach() - start[name]
                    control_delta[name] = new_control[name] - client_controls[k][name]
                client_controls[k] = new_control
                deltas.append(delta)
                control_deltas.append(control_delta)
            if not deltas:
                break
            merged = dict(start)
            for name in server_control:
                merged[name] = start[name] + sum(d[name] for d in deltas) / len(deltas)
                server_control[name] = (server_control[name]
                                        + sum(d[name] for d in control_deltas) / len(parts))
            global_model.load_state_dict(merged)
    mon.held_out_accuracy = accuracy(global_model, x_test, y_test)
    return mon
