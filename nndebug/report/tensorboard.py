"""TensorBoard event files for a watched run: ``watch(model, opt, tensorboard="runs/x")``.

Uses torch's ``SummaryWriter`` (torch.utils.tensorboard, needs the ``tensorboard``
package) or tensorboardX's, whichever is installed. Written per recorded step: the
training (and validation) loss, per-layer gradient norms and update/weight ratios,
per-layer activation mean/std and dead/saturated shares, and activation histograms on
the histogram schedule.
"""
import math

import numpy as np


def _summary_writer_class():
    try:
        from torch.utils.tensorboard import SummaryWriter
        return SummaryWriter
    except ImportError:
        pass
    try:
        from tensorboardX import SummaryWriter
        return SummaryWriter
    except ImportError:
        raise ImportError("watch(..., tensorboard=DIR) needs a SummaryWriter: install PyTorch "
                          "and the tensorboard package (pip install tensorboard), or "
                          "tensorboardX") from None


class TensorBoardWriter:
    def __init__(self, logdir):
        self.writer = _summary_writer_class()(log_dir=str(logdir))

    def losses(self, steps, values, tag="loss/train"):
        for step, value in zip(steps, values):
            if math.isfinite(value):
                self.writer.add_scalar(tag, value, int(step))

    def record(self, run, record, histograms):
        step = int(record.step)
        for i, param in enumerate(run.params):
            g = record.grad_norm[i] if record.grad_norm is not None else float("nan")
            if np.isfinite(g):
                self.writer.add_scalar(f"grad_norm/{param.name}", float(g), step)
            if record.update_norm is not None and len(record.update_norm) > i and \
                    record.param_norm[i] > 0 and np.isfinite(record.update_norm[i]):
                self.writer.add_scalar(f"update_to_weight/{param.name}",
                                       float(record.update_norm[i] / record.param_norm[i]), step)
        for layer, stats in record.activations.items():
            for stat in ("mean", "std", "dead", "saturated"):
                value = stats.get(stat)
                if value is not None and math.isfinite(value):
                    self.writer.add_scalar(f"activation_{stat}/{layer}", value, step)
        for layer, (counts, edges) in histograms.items():
            centres = (edges[:-1] + edges[1:]) / 2
            total = float(counts.sum())
            if total <= 0:
                continue
            self.writer.add_histogram_raw(
                f"activations/{layer}", min=float(edges[0]), max=float(edges[-1]), num=total,
                sum=float((counts * centres).sum()), sum_squares=float((counts * centres ** 2).sum()),
                bucket_limits=edges[1:].tolist(), bucket_counts=counts.astype(float).tolist(),
                global_step=step)

    def close(self):
        self.writer.flush()
        self.writer.close()
