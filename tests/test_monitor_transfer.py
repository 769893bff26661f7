"""The one-transfer packing alone: many small results in, ONE host copy, a StepRecord out."""
import numpy as np

from nndebug.adapters.minigrad_adapter import NumpyNamespace
from nndebug.monitor.transfer import Packet, build_record


class CountingAdapter:
    """Just what the packing needs from an adapter, counting host copies."""

    xp = NumpyNamespace()

    def __init__(self):
        self.copies = 0

    def to_host(self, tensor):
        self.copies += 1
        return np.array(tensor, dtype=float)


def test_every_result_of_a_step_travels_in_one_copy_and_comes_back_under_its_key():
    adapter = CountingAdapter()
    packet = Packet()
    norms = np.array([1.0, 2.0, 3.0, 4.0, 5.0], dtype=np.float32)
    packet.add_joined(norms, [("grad_norm", 2), ("param_norm", 3)])
    packet.add(("input", "mean"), np.float32(0.5) * np.ones(()))   # a 0-d device value
    packet.add(("input", "batch"), 16.0)                              # already on the host
    packet.add(("layer", "1", "unit_max"), np.array([0.0, 2.0, -1.0]))
    packet.add(("layer", "1", "std"), np.array(0.25))
    packet.add("loss", np.array(0.7))
    packet.add("loss", np.array(0.6))
    packet.add("val", np.array(0.9))
    packet.add(("layer", "2", "mean"), None)                         # not measured: skipped
    values, losses = packet.send(adapter)
    assert adapter.copies == 1
    assert values["grad_norm"].tolist() == [1.0, 2.0] and values["param_norm"].tolist() == [3, 4, 5]
    assert values[("input", "mean")].tolist() == [0.5] and values[("input", "batch")].tolist() == [16]
    assert values[("layer", "1", "unit_max")].tolist() == [0.0, 2.0, -1.0]
    assert losses == {"loss": [0.7, 0.6], "val": [0.9]}
    assert ("layer", "2", "mean") not in values


def test_build_record_puts_each_value_in_its_field():
    values = {"grad_norm": np.array([1.0]), "held_norm": np.array([1.5]),
              "held_excess": np.array([0.5]), "param_norm": np.array([3.0, 4.0]),
              "update_norm": np.array([0.1, 0.2]), ("input", "mean"): np.array([0.5]),
              ("layer", "1", "unit_max"): np.array([0.0, 2.0, -1.0]),
              ("layer", "1", "std"): np.array([0.25]),
              ("layer", "1", "histogram"): np.array([0.0, 1.0, 1.0, np.nan]),
              "output": np.arange(6.0)}
    record, histograms = build_record(7, 2, values, got=[1], comparable=[1], output_shape=(2, 3))
    assert record.step == 7 and record.backward
    assert np.isnan(record.grad_norm[0]) and record.grad_norm[1] == 1.0
    assert record.grad_received.tolist() == [False, True]
    assert record.held_excess[1] == 0.5 and record.update_norm.tolist() == [0.1, 0.2]
    assert record.inputs == {"mean": 0.5}
    assert record.dead_units["1"].tolist() == [True, False, True]
    assert record.activations["1"] == {"dead": 2 / 3, "std": 0.25}
    counts, edges = histograms["1"]
    assert counts.sum() == 3                                   # the NaN is left out
    assert record.output.shape == (2, 3) and record.judged


def test_a_value_that_cannot_be_placed_costs_only_itself():
    values = {("layer", "1", "std"): np.array([]),             # empty: float(v[0]) fails
              ("layer", "1", "mean"): np.array([0.5])}
    failed = []
    record, _ = build_record(0, 0, values, [], [], on_error=lambda what, e: failed.append(what))
    assert record.activations["1"] == {"mean": 0.5} and failed == ["std of layer 1"]
