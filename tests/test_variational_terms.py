"""ELBO_KL_OVERWEIGHTED (real-bug batches 141 and 193): a Bayes-by-backprop classifier whose
KL term, next to a per-example mean NLL, is left whole or divided by the number of batches
learns the prior: its predictions a uniform guess, its loss hundreds of times ln(C) and
falling from the KL alone. Named from the (mean, spread) weight pairs, the uniform guesses
and the loss's level; silent on the scaled ELBO, and on a plain network whose hand-written
penalty outweighs its class loss (no weight distributions: no KL to blame)."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import bnn_kl_divided_by_batch_count_with_mean_likelihood as per_batch  # noqa: E402,E501
from nndebug.rules.variational_terms import paired_weights  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_a_kl_per_batch_beside_a_mean_nll_is_named():
    mon = per_batch.run(fixed=False)
    assert mon.held_out_accuracy < 0.2
    assert "ELBO_KL_OVERWEIGHTED" in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == "ELBO_KL_OVERWEIGHTED")
    assert finding.evidence["tail_over_chance"] > 50
    assert finding.evidence["paired_weights"][0].endswith("weight_mu")


def test_the_kl_per_training_example_is_silent():
    mon = per_batch.run(fixed=True)
    assert mon.held_out_accuracy > 0.8
    assert not _codes(mon)


def test_a_plain_network_under_a_heavy_penalty_is_not_called_a_bayesian_one():
    torch.manual_seed(0)
    x = torch.randn(512, 16)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    with nd.watch(net, optimizer) as mon:
        for step in range(200):
            i = torch.randint(0, len(x), (64,))
            penalty = sum((p ** 2).sum() for p in net.parameters())
            loss = torch.nn.functional.cross_entropy(net(x[i]), y[i]) + 1e4 * (penalty + 1.0)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "ELBO_KL_OVERWEIGHTED" not in _codes(mon)


class _Param:
    def __init__(self, name, shape, trainable=True):
        self.name, self.shape, self.trainable = name, shape, trainable


class _Run:
    def __init__(self, *params):
        self.params = list(params)


def test_weight_pairs_are_read_from_their_names_and_shapes():
    run = _Run(_Param("l1.weight_mu", (4, 3)), _Param("l1.weight_rho", (4, 3)),
               _Param("l2.mu_weight", (2, 4)), _Param("l2.log_sigma_weight", (2, 4)),
               _Param("l3.weight_mu", (2, 4)), _Param("l3.weight_rho", (4, 2)),
               _Param("emu.weight", (5, 5)))
    paired, weights = paired_weights(run)
    assert weights == 7
    assert set(paired) == {"l1.weight_mu", "l2.mu_weight"}   # l3: shapes differ; emu: no pair
