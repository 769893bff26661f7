"""LOSS_BROADCAST_OVER_BATCH beyond square tables (real-bug batch 203). Mixup's label weight
shaped (N, 1, 1, 1) for the images, reused on the one-hot labels, makes (N, 1, N, C)
targets; their product with the model's (N, C) log-probabilities scores every row against
every row's target, and the soft cross-entropy trains each image towards the batch's mean
label weight (cleverhans-lab/cleverhans#700). The loss-graph test looked for (N, N) tables
only; a product of more axes that holds the batch twice, exactly N times the model's side,
is read the same way now. Mixup with the weight shaped for the labels, and an in-batch
contrastive loss whose (N, N) targets meet an (N, N) similarity, stay silent."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import mixup_label_weights_broadcast_across_batch as mixup  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_mixup_label_weights_shaped_for_images_are_named():
    mon = mixup.run(fixed=False)
    finding = next(f for f in mon.findings() if f.code == "LOSS_BROADCAST_OVER_BATCH")
    assert finding.evidence["table_shape"] == [64, 1, 64, 10]
    assert finding.evidence["output_shape"] == [64, 10]


def test_mixup_label_weights_shaped_for_labels_are_silent():
    assert not _problems(mixup.run(fixed=True))


def test_an_in_batch_contrastive_loss_is_silent():
    torch.manual_seed(0)
    x = torch.randn(512, 16)
    encoder = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(),
                                  torch.nn.Linear(32, 8))
    optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)
    with nd.watch(encoder, optimizer) as mon:
        for step in range(60):
            i = torch.randint(0, len(x), (32,))
            a = F.normalize(encoder(x[i] + 0.1 * torch.randn(32, 16)), dim=1)
            b = F.normalize(encoder(x[i] + 0.1 * torch.randn(32, 16)), dim=1)
            targets = torch.eye(32)
            loss = -(targets * F.log_softmax(a @ b.T / 0.1, dim=1)).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LOSS_BROADCAST_OVER_BATCH" not in _problems(mon)
