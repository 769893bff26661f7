"""BATCH_MIXING on a statistic of the batch appended to each sample (minibatch
discrimination, ProGAN's and StyleGAN's discriminators; real-bug batch 267's twin) is named
as design (info), while the mix-ups that look close to it stay errors: the batch mean
concatenated to the features, the batch mean added to them, a softmax over the batch."""
import numpy as np
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")
nn = torch.nn

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class MinibatchStd(nn.Module):
    """One more feature: the batch's mean per-feature spread, the same for every sample."""
    def __init__(self, groups=None):
        super().__init__()
        self.groups = groups

    def forward(self, x):
        if self.groups is None:
            std = torch.std(x, dim=0).mean().expand(len(x), 1)
        else:     # StyleGAN: the spread within groups of samples, one value per group
            g = x.view(self.groups, -1, x.shape[1])
            std = torch.std(g, dim=0).mean(dim=1).repeat(self.groups).view(-1, 1)
        return torch.cat([x, std], dim=1)


class InlineMinibatchStd(nn.Module):
    """The same statistic written in the discriminator's own forward, not as a module."""
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Sequential(nn.Linear(12, 16), nn.LeakyReLU(0.2)), nn.Linear(17, 1)

    def forward(self, x):
        h = self.body(x)
        std = torch.std(h, dim=0).mean().expand(len(h), 1)
        return self.head(torch.cat([h, std], dim=1))


class ConcatBatchMean(nn.Module):
    """A bug: the 'context' meant per sample (mean over features) taken over the batch."""
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(12, 16), nn.Linear(32, 1)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(torch.cat([h, h.mean(dim=0, keepdim=True).expand_as(h)], dim=1))


class AddBatchMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(12, 16), nn.Linear(16, 1)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.head(h + h.mean(dim=0))


class SoftmaxOverBatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(12, 16), nn.Linear(16, 1)

    def forward(self, x):
        return self.head(torch.softmax(self.body(x), dim=0))


def discriminator(groups=None):
    return nn.Sequential(nn.Linear(12, 16), nn.LeakyReLU(0.2), MinibatchStd(groups),
                         nn.Linear(17, 1))


def mixing(model, size=8):
    torch.manual_seed(1)
    res = nd.check_dependencies(model, torch.randn(size, 12))
    return [(f.code, f.severity) for f in res.findings if f.code == "BATCH_MIXING"], res


@pytest.mark.parametrize("build", [discriminator, lambda: discriminator(groups=2),
                                   InlineMinibatchStd], ids=["module", "grouped", "inline"])
def test_a_batch_statistic_appended_to_each_sample_is_named_as_design(build):
    torch.manual_seed(0)
    found, res = mixing(build())
    assert found == [("BATCH_MIXING", "info")], str(res)
    info = [f for f in res.findings if f.code == "BATCH_MIXING"][0]
    assert info.evidence["mixed_values"] == 1 and "drop_last" in info.fix


@pytest.mark.parametrize("build", [ConcatBatchMean, AddBatchMean, SoftmaxOverBatch],
                         ids=["concat-batch-mean", "add-batch-mean", "softmax-over-batch"])
def test_mix_ups_close_to_it_stay_errors(build):
    torch.manual_seed(0)
    found, res = mixing(build())
    assert found == [("BATCH_MIXING", "error")], str(res)


def test_the_model_is_left_as_it_was():
    torch.manual_seed(0)
    model = discriminator().train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    mixing(model)
    assert model.training
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert np.isfinite(sum(float(v.sum()) for v in model.state_dict().values()))
