"""A forward that calls ``x.float()`` runs in nndebug's float64 private copies.

``x.float()`` in a forward brings integer ids or half-precision batches to the model's float
dtype. The checks that run a float64 copy of the model (gradcheck, check_dependencies) cast
the weights to float64, and a float32 input then met float64 weights: "mat1 and mat2 must
have the same dtype", and the check refused a healthy model. Inside the copy ``.float()``
now gives the copy's dtype; outside, it is torch's own again, also when the check fails."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class CastsItsInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(10, 3)

    def forward(self, x):
        return self.layer(x.float())


def _model():
    torch.manual_seed(0)
    return CastsItsInput()


@pytest.mark.parametrize("inputs", [torch.randn(16, 10), torch.randint(0, 5, (16, 10))],
                         ids=["float32", "int64"])
def test_check_dependencies_runs_a_model_that_casts_its_input(inputs):
    model = _model()
    result = nd.check_dependencies(model, inputs, torch.randint(0, 3, (16,)))
    assert not [f for f in result.findings if f.severity != "info"]
    assert model.layer.weight.dtype == torch.float32     # the user's model is untouched


def test_gradcheck_runs_a_model_that_casts_its_input():
    result = nd.gradcheck(_model(), torch.randn(8, 10), torch.randint(0, 3, (8,)),
                          nn.CrossEntropyLoss())
    assert result.passed and result.checks


def test_float_is_torchs_own_again_after_a_check_and_after_a_failed_one():
    original = torch.Tensor.float
    nd.check_dependencies(_model(), torch.randn(16, 10))
    assert torch.Tensor.float is original
    assert torch.ones(2, dtype=torch.float64).float().dtype == torch.float32
    with pytest.raises((ValueError, TypeError)):
        nd.check_dependencies(_model(), torch.randn(16, 7))       # the wrong width
    assert torch.Tensor.float is original
