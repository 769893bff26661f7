"""INPUT_FEATURES_DUPLICATED for one tensor given to the model twice
(``monitor/first_training_inputs.equal_id_arguments``, ``rules/duplicated_inputs.py``;
real-bug batches 314 and 315).

Planted: a question-pair model called with the first question twice, ``model(q1, q1)``.
Healthy: the same model given both questions; a model given two masks that agree by
design (0/1 values, never compared as ids); a model given one float tensor twice (an
autoencoder may take its target as an argument: not read here).
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
WORDS, LENGTH = 40, 10


class PairModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(WORDS, 16)
        self.head = nn.Linear(32, 2)

    def forward(self, first, second, first_mask=None, second_mask=None):
        return self.head(torch.cat([self.embed(first).mean(1), self.embed(second).mean(1)], 1))


def _train(call, steps=12):
    torch.manual_seed(0)
    model = PairModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            q1 = torch.randint(1, WORDS, (32, LENGTH))
            q2 = torch.randint(1, WORDS, (32, LENGTH))
            labels = (q1[:, 0] > q2[:, 0]).long()
            loss = nn.functional.cross_entropy(call(model, q1, q2), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return [f for f in mon.findings() if f.code == "INPUT_FEATURES_DUPLICATED"]


def test_the_first_question_given_twice_is_named():
    found = _train(lambda model, q1, q2: model(q1, q1))
    assert found and found[0].severity == "warning"
    assert found[0].evidence["arguments"] == [[0, 1]]


def test_both_questions_are_not():
    assert not _train(lambda model, q1, q2: model(q1, q2))


def test_two_masks_that_agree_are_not():
    def call(model, q1, q2):
        mask = torch.ones_like(q1)
        return model(q1, q2, mask, mask.clone())
    assert not _train(call)


def test_a_float_tensor_given_twice_is_not_read_as_ids():
    class Reconstruct(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(8, 8)

        def forward(self, x, target):
            return ((self.net(x) - target) ** 2).mean()

    torch.manual_seed(0)
    model = Reconstruct()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for _ in range(12):
            x = torch.randn(32, 8)
            loss = model(x, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not any(f.code == "INPUT_FEATURES_DUPLICATED" for f in mon.findings())
