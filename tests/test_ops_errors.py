"""Bad shapes and dtypes given to the public op functions get errors a learner can act on:
each message names what it got and what it expected."""
import numpy as np
import pytest

import minigrad as mg
from minigrad import ops


def t(shape, dtype=np.float64):
    return mg.tensor(np.ones(shape), dtype=dtype, requires_grad=True)


def test_binary_op_names_both_shapes_the_clashing_axis_and_a_fix():
    with pytest.raises(ValueError) as error:
        t((2, 3)) + t((4,))
    message = str(error.value)
    assert "cannot broadcast shapes (2, 3) and (4,)" in message
    assert "3 vs 4" in message and "reshape" in message
    with pytest.raises(ValueError, match=r"mul: cannot broadcast shapes \(5, 2\) and \(3, 1, 4\)"):
        ops.mul(t((5, 2)), t((3, 1, 4)))
    with pytest.raises(ValueError, match=r"where: cannot broadcast"):
        ops.where(np.ones(3, dtype=bool), t((3,)), t((2,)))


def test_matmul_mismatch_names_the_axes():
    with pytest.raises(ValueError, match=r"\(2, 3\) @ \(4, 5\).*\(3\)"):
        t((2, 3)) @ t((4, 5))


def test_conv2d_errors():
    with pytest.raises(ValueError, match=r"3 channels.*expects 4"):
        ops.conv2d(t((1, 3, 5, 5)), t((2, 4, 3, 3)))
    with pytest.raises(ValueError, match=r"\(N, C, H, W\), got shape \(5, 5\)"):
        ops.conv2d(t((5, 5)), t((2, 1, 3, 3)))
    with pytest.raises(ValueError, match=r"weight shaped \(out_channels, in_channels, kh, kw\), got shape \(2, 3\)"):
        ops.conv2d(t((1, 3, 5, 5)), t((2, 3)))
    with pytest.raises(ValueError, match=r"input height 2.*kernel's reach 3"):
        ops.conv2d(t((1, 1, 2, 8)), t((1, 1, 3, 3)))
    with pytest.raises(ValueError, match=r"bias of shape \(2,\), got \[\(3,\)\]"):
        ops.conv2d(t((1, 1, 4, 4)), t((2, 1, 3, 3)), t((3,)))
    with pytest.raises(ValueError, match=r"groups=3 must divide the input channels \(2\)"):
        ops.conv2d(t((1, 2, 4, 4)), t((3, 1, 3, 3)), groups=3)
    with pytest.raises(ValueError, match="stride must be at least 1"):
        ops.conv2d(t((1, 1, 4, 4)), t((1, 1, 3, 3)), stride=0)
    with pytest.raises(TypeError, match="padding must be an int or a pair"):
        ops.conv2d(t((1, 1, 4, 4)), t((1, 1, 3, 3)), padding=1.5)


def test_pooling_errors():
    with pytest.raises(ValueError, match=r"padding \(2, 2\) is more than half the kernel size \(3, 3\)"):
        ops.max_pool2d(t((1, 1, 6, 6)), 3, padding=2)
    with pytest.raises(ValueError, match="touch only padding"):
        ops.max_pool2d(t((1, 1, 1, 1)), 2, stride=1, padding=1, dilation=2)
    with pytest.raises(ValueError, match=r"\(N, C, H, W\)"):
        ops.avg_pool2d(t((4, 4)), 2)


def test_cross_entropy_float_targets_given_as_indices():
    with pytest.raises(TypeError) as error:
        ops.cross_entropy(t((4, 3)), np.array([0.0, 1.0, 2.0, 1.0]))
    message = str(error.value)
    assert "float64" in message and "(4,)" in message and "integer" in message
    assert "astype(np.int64)" in message


def test_cross_entropy_target_out_of_range_names_the_class_count():
    with pytest.raises(IndexError, match=r"class 3.*3 classes.*0\.\.2"):
        ops.cross_entropy(t((2, 3)), np.array([0, 3]))
    with pytest.raises(IndexError, match=r"class -1"):
        ops.cross_entropy(t((2, 3)), np.array([-1, 0]))


def test_cross_entropy_shape_mismatch_names_the_expected_shape():
    with pytest.raises(ValueError, match=r"target has shape \(4, 1\).*expected target shape is \(4,\)"):
        ops.cross_entropy(t((4, 3)), np.zeros((4, 1), dtype=np.int64))
    with pytest.raises(ValueError, match="one-hot"):
        ops.cross_entropy(t((4, 3)), np.eye(3, dtype=np.int64)[[0, 1, 2, 0]])
    with pytest.raises(ValueError, match="reduction must be one of"):
        ops.cross_entropy(t((2, 3)), np.array([0, 1]), reduction="avg")
    with pytest.raises(TypeError, match="keyword"):
        ops.cross_entropy(t((2, 3)), np.array([0, 1]), "sum")


def test_loss_shape_errors():
    with pytest.raises(ValueError, match=r"target shape \(3,\) must equal input shape \(3, 1\)"):
        ops.binary_cross_entropy_with_logits(t((3, 1)), t((3,)))
    with pytest.raises(ValueError, match=r"input shape \(3, 2\) and target shape \(4,\) cannot be broadcast"):
        with pytest.warns(UserWarning):
            ops.mse_loss(t((3, 2)), t((4,)))


def test_mse_warns_when_shapes_differ_like_torch():
    with pytest.warns(UserWarning, match=r"\(4, 1\).*\(4,\).*broadcast"):
        ops.mse_loss(t((4, 1)), t((4,)))


def test_embedding_errors():
    with pytest.raises(TypeError, match=r"ids must be integers, got dtype float64"):
        ops.embedding(np.array([0.0, 1.0]), t((5, 2)))
    with pytest.raises(IndexError, match=r"id 5 is out of range.*5 rows.*0\.\.4"):
        ops.embedding(np.array([0, 5]), t((5, 2)))


def test_norm_errors():
    with pytest.raises(ValueError, match=r"normalized_shape \(4,\).*shape \(2, 3\)"):
        ops.layer_norm(t((2, 3)), 4)
    with pytest.raises(ValueError, match=r"weight has shape \(2,\), expected normalized_shape \(3,\)"):
        ops.layer_norm(t((2, 3)), 3, weight=t((2,)))
    with pytest.raises(ValueError, match=r"weight has shape \(3,\), expected \(4,\)"):
        ops.batch_norm(t((2, 4)), None, None, weight=t((3,)), training=True)
    with pytest.raises(ValueError, match=r"more than one value per channel.*\(1, 4\)"):
        ops.batch_norm(t((1, 4)), None, None, training=True)
    with pytest.raises(ValueError, match="needs running_mean and running_var"):
        ops.batch_norm(t((2, 4)), None, None, training=False)
    with pytest.raises(ValueError, match=r"running mean has shape \(3,\), expected \(4,\)"):
        ops.batch_norm(t((2, 4)), np.zeros(3), np.ones(3), training=False)


def test_dropout_probability_out_of_range():
    with pytest.raises(ValueError, match="between 0 and 1, got 1.5"):
        ops.dropout(t((3,)), p=1.5)


def test_gelu_unknown_approximation():
    with pytest.raises(ValueError, match="'none' or 'tanh', got 'fast'"):
        ops.gelu(t((3,)), approximate="fast")


def test_reduction_axis_out_of_range_is_an_error_not_a_wraparound():
    with pytest.raises(ValueError, match=r"axis 2 is out of range.*2 dimensions.*-2\.\.1"):
        t((2, 3)).sum(axis=2)
    with pytest.raises(ValueError, match=r"axis -3 is out of range"):
        ops.mean(t((2, 3)), axis=(0, -3))


def test_shape_op_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"permute: axes \(0, 2\).*\(2, 3\)"):
        t((2, 3)).permute(0, 2)
    with pytest.raises(ValueError, match=r"cat: shapes \[\(2, 3\), \(2, 4\)\].*axis 0"):
        ops.cat([t((2, 3)), t((2, 4))], axis=0)
    with pytest.raises(ValueError, match=r"stack: .*\[\(2, 3\), \(3, 2\)\]"):
        ops.stack([t((2, 3)), t((3, 2))])


@pytest.mark.parametrize("join", ["cat", "stack"])
def test_joining_nothing_or_one_tensor_names_what_was_expected(join):
    import minigrad as mg
    fn = getattr(mg, join)
    with pytest.raises(ValueError, match=f"{join}: expected a non-empty list of tensors"):
        fn([])
    with pytest.raises(TypeError, match=f"{join}: expected a list or tuple of tensors, got one "
                                        r"Tensor of shape \(3,\)"):
        fn(mg.randn(3))
    assert fn((mg.randn(2), mg.randn(2))).shape == ((4,) if join == "cat" else (2, 2))
