"""GRADIENTS_DISCARDED needs two backward passes in a step (rules/setup.py, _one_backward_pass):
a data-parallel loop written by hand in one process copies the mean of its replicas'
gradients into every replica's .grad before they step (pytorch/examples#483's fix), so the
watched replica's .grad is not what its one backward delivered, and was told its gradients
were cleared between two passes (real-bug batch 330's twin). A zero_grad inside a
gradient-accumulation loop is still named."""
import copy

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 12, generator=g)
    return x, (x[:, 0] + x[:, 1] > 0).long()


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))


def test_replica_gradients_averaged_by_hand_are_not_discarded():
    x, y = data()
    replicas = [model()]
    replicas += [copy.deepcopy(replicas[0]) for _ in range(3)]
    optimizers = [torch.optim.SGD(r.parameters(), lr=0.05) for r in replicas]
    with nd.watch(replicas[0], optimizers[0]) as mon:
        for step in range(200):
            losses = []
            for rank, (replica, optimizer) in enumerate(zip(replicas, optimizers)):
                rows = torch.arange(rank, 2048, 4)[torch.randint(0, 512, (16,))]
                optimizer.zero_grad()
                loss = F.cross_entropy(replica(x[rows]), y[rows])
                loss.backward()
                losses.append(loss)
            for tensors in zip(*(r.parameters() for r in replicas)):   # the all-reduce
                mean = torch.stack([p.grad for p in tensors]).mean(0)
                for p in tensors:
                    p.grad.copy_(mean)
            for optimizer in optimizers:
                optimizer.step()
            mon.step(losses[0])
    assert not [f for f in mon.findings() if f.code == "GRADIENTS_DISCARDED"], mon.findings()
    assert all(passes == 1 for _, passes in mon.run.observed.backward_passes)


def test_a_zero_grad_inside_accumulation_is_still_named():
    x, y = data()
    net = model()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    with nd.watch(net, optimizer) as mon:
        for step in range(200):
            for _ in range(4):
                optimizer.zero_grad()                  # the bug: inside the micro-batches
                rows = torch.randint(0, 2048, (16,))
                loss = F.cross_entropy(net(x[rows]), y[rows]) / 4
                loss.backward()
            optimizer.step()
            mon.step(loss)
    assert [f for f in mon.findings() if f.code == "GRADIENTS_DISCARDED"], mon.findings()
