"""PNG dashboards of a watched run (matplotlib, Agg canvas; imported only when plotting).

One figure, four panels a learner reads at a glance:
  1. the loss curve (raw and smoothed, validation dots) with each finding marked where it
     was first seen;
  2. gradient flow: the gradient norm of each layer's weights, first layer on the left
     (vanishing gradients fall off to the left, exploding ones climb), with the
     update-to-weight ratio of each layer against the healthy band around 1e-3;
  3. activation scale over time, one line per layer;
  4. dead ReLU units and saturated tanh/sigmoid outputs over time.

No pyplot: the figure is drawn on its own Agg canvas, so the user's matplotlib backend
and open figures are left alone.
"""
import math
import os

import numpy as np

from ..history import DISPLAY_POINTS, display_buckets

SEVERITY_COLOURS = {"error": "#c0392b", "warning": "#e67e22", "info": "#7f8c8d"}
LINE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                "#7f7f7f", "#bcbd22", "#17becf"]


def _figure(width, height):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:   # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install matplotlib") from error
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def _smooth(values, width):
    values = np.asarray(values, float)
    if len(values) < 3 or width < 2:
        return values
    width = min(width, len(values))
    padded = np.pad(values, (width // 2, width - 1 - width // 2), mode="edge")
    return np.median(np.lib.stride_tricks.sliding_window_view(padded, width), axis=1)


def plot_loss(ax, run, findings):
    steps, losses = run.loss_array()
    finite = np.isfinite(losses)
    ax.set_title("Loss (findings marked where first seen)", fontsize=10, loc="left", y=1.0)
    if finite.sum() > DISPLAY_POINTS:   # a long run: min-max band and mean of equal buckets
        middle, low, mean, high = display_buckets(steps[finite], losses[finite])
        ax.fill_between(middle, low, high, color="#aab7c4", alpha=0.6, lw=0,
                        label="training loss (min-max)")
        ax.plot(middle, _smooth(mean, max(3, len(mean) // 25)), color="#2c3e50", lw=1.8,
                label="smoothed")
    elif finite.any():
        ax.plot(steps[finite], losses[finite], color="#aab7c4", lw=0.8, label="training loss",
                marker="o" if finite.sum() < 10 else None, ms=4)
        smooth = _smooth(losses[finite], max(3, finite.sum() // 25))
        ax.plot(steps[finite], smooth, color="#2c3e50", lw=1.8, label="smoothed")
    if finite.any():
        positive = losses[finite] > 0
        if positive.all() and losses[finite].max() / max(losses[finite].min(), 1e-12) > 30:
            ax.set_yscale("log")
    vsteps, val = run.val_array()
    if len(val) and np.isfinite(val).any():
        ok = np.isfinite(val)
        ax.plot(vsteps[ok], val[ok], "o-", color="#27ae60", ms=3, lw=1, label="validation loss")
    if (~finite).any():
        top = ax.get_ylim()[1] if finite.any() else 1.0
        ax.plot(steps[~finite], np.full((~finite).sum(), top), "x", color="#c0392b",
                label="NaN/Inf loss")
    shown = 0
    for f in findings:
        if f.step is None or f.severity == "info" or shown >= 6:
            continue
        colour = SEVERITY_COLOURS[f.severity]
        ax.axvline(f.step, color=colour, lw=1, ls="--", alpha=0.8)
        ax.text(f.step, 0.9 - 0.08 * shown, f" {f.code}", transform=ax.get_xaxis_transform(),
                color=colour, fontsize=7.5, va="top", ha="left", fontweight="bold")
        shown += 1
    ax.set_xlabel("step")
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(alpha=0.3)


def _per_column(reduce, matrix):
    """``reduce`` (nanmedian, nanmin, ...) of each column; NaN for a column with no finite value."""
    return np.array([reduce(c) if np.isfinite(c).any() else np.nan for c in matrix.T])


def plot_gradient_flow(ax, run):
    weights = [i for i, p in enumerate(run.params) if len(p.shape) >= 2]
    ax.set_title("Gradient flow: |grad| of each layer's weights (input side left)", fontsize=10,
                 loc="left", y=1.0)
    grads = run.matrix("grad_norm")
    if not weights or grads.size == 0:
        ax.text(0.5, 0.5, "no gradients recorded", ha="center", transform=ax.transAxes)
        return
    names = [run.params[i].name.rsplit(".", 1)[0] or run.params[i].name for i in weights]
    with np.errstate(all="ignore"):
        g = np.where(np.isfinite(grads[:, weights]) & (grads[:, weights] > 0), grads[:, weights], np.nan)
        median, low, high = (_per_column(f, g) for f in (np.nanmedian, np.nanmin, np.nanmax))
        ratio = run.matrix("update_norm")[:, weights] / run.matrix("param_norm")[:, weights]
        ratio = np.where(np.isfinite(ratio) & (ratio > 0), ratio, np.nan)
        ratio_median = _per_column(np.nanmedian, ratio)
    x = np.arange(len(weights))
    missing = ~np.isfinite(median)
    bars = np.where(missing, 0, median)
    ax.bar(x, bars, color="#3498db", alpha=0.8, label="median |grad|")
    ok = ~missing
    if ok.any():
        ax.vlines(x[ok], low[ok], high[ok], color="#1f4e79", lw=1.2, label="min-max over steps")
        ax.set_yscale("log")
    received = run.matrix("grad_received").astype(bool)
    nonfinite = np.array([bool(np.any(received[:, i] & ~np.isfinite(grads[:, i])))
                          for i in weights])
    for xi in x[missing]:
        ax.text(xi, 0.02, "NaN/Inf" if nonfinite[xi] else "no gradient",
                transform=ax.get_xaxis_transform(), ha="center", color="#c0392b", fontsize=7,
                rotation=90)
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=45 if len(names) > 6 else 0, ha="right" if len(names) > 6
                       else "center", fontsize=7)
    ax.set_ylabel("|grad|")
    twin = ax.twinx()
    twin.axhspan(1e-4, 1e-2, color="#2ecc71", alpha=0.12)
    finite = np.isfinite(ratio_median)
    if finite.any():
        twin.plot(x[finite], ratio_median[finite], "D", color="#8e44ad", ms=5,
                  label="update / weight")
        twin.set_yscale("log")
        lo = min(1e-5, np.nanmin(ratio_median[finite]) / 3)
        hi = max(1e-1, np.nanmax(ratio_median[finite]) * 3)
        twin.set_ylim(lo, hi)
    twin.set_ylabel("update / weight per step (green: healthy)", fontsize=8, color="#8e44ad")
    lines = ax.get_legend_handles_labels()
    lines2 = twin.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=7, loc="upper left")
    ax.grid(alpha=0.3, axis="y")


def _layers_to_show(run, limit=10):
    """The nonlinearities (where dead or saturated units live) and the output layer, or all
    layers of a model without any; thinned evenly to ``limit`` lines."""
    layers = [l for l in run.layers if l.type not in ("Softmax", "LogSoftmax")]
    active = [l for l in layers if l.kind in ("relu", "tanh", "sigmoid")]
    if active and layers and layers[-1] not in active:
        active.append(layers[-1])
    layers = active or layers
    if len(layers) <= limit:
        return layers
    stride = math.ceil(len(layers) / limit)
    chosen = layers[::stride]
    return chosen if layers[-1] in chosen else chosen + [layers[-1]]


def plot_activation_scale(ax, run):
    ax.set_title("Activation scale over time (root-mean-square per layer)", fontsize=10, loc="left", y=1.0)
    shown = False
    for k, layer in enumerate(_layers_to_show(run)):
        steps, mean = run.layer_series(layer.name, "mean")
        _, std = run.layer_series(layer.name, "std")
        if not len(steps):
            continue
        rms = np.sqrt(mean ** 2 + std ** 2)
        ok = np.isfinite(rms) & (rms > 0)
        if ok.any():
            ax.plot(steps[ok], rms[ok], lw=1.2, color=LINE_COLOURS[k % len(LINE_COLOURS)],
                    marker="o" if ok.sum() < 10 else None, ms=4,
                    label=f"{layer.name or 'model'} ({layer.type})")
            shown = True
    if shown:
        ax.set_yscale("log")
        ax.legend(fontsize=6.5, loc="best", ncol=2)
    else:
        ax.text(0.5, 0.5, "no activations recorded", ha="center", transform=ax.transAxes)
    ax.set_xlabel("step")
    ax.grid(alpha=0.3)


def plot_dead_saturated(ax, run):
    from ..rules.signal_flow import DEAD_FRACTION, SATURATED_FRACTION
    ax.set_title("Dead ReLU units / saturated tanh-sigmoid outputs (share of the layer)",
                 fontsize=10, loc="left", y=1.0)
    shown = False
    for k, layer in enumerate(run.layers):
        stat = "dead" if layer.kind == "relu" else "saturated" if layer.kind in ("tanh", "sigmoid") \
            else None
        if stat is None:
            continue
        steps, values = run.layer_series(layer.name, stat)
        ok = np.isfinite(values)
        if ok.any():
            ax.plot(steps[ok], values[ok], lw=1.2, color=LINE_COLOURS[k % len(LINE_COLOURS)],
                    marker="o" if ok.sum() < 10 else None, ms=4, label=f"{layer.name} {stat}")
            shown = True
    ax.axhline(DEAD_FRACTION, color="#c0392b", lw=0.8, ls=":")
    if SATURATED_FRACTION != DEAD_FRACTION:
        ax.axhline(SATURATED_FRACTION, color="#e67e22", lw=0.8, ls=":")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("step")
    if shown:
        ax.legend(fontsize=6.5, loc="best", ncol=2)
    else:
        ax.text(0.5, 0.5, "no ReLU/tanh/sigmoid layers", ha="center", transform=ax.transAxes)
    ax.grid(alpha=0.3)


def plot_dashboard(run, findings, path, title=None):
    """Write the four-panel dashboard PNG to ``path`` (folders created); returns the path."""
    from .. import validation
    validation.path(path, "path")
    figure = _figure(14, 9.5)
    axes = figure.subplots(2, 2)
    plot_loss(axes[0, 0], run, findings)
    plot_gradient_flow(axes[0, 1], run)
    plot_activation_scale(axes[1, 0], run)
    plot_dead_saturated(axes[1, 1], run)
    for ax in (axes[0, 0], axes[1, 0], axes[1, 1]):    # time axes show the whole run
        ax.set_xlim(-0.5, max(run.n_steps, 1) - 0.5)
    from matplotlib.ticker import NullLocator
    for ax in figure.axes:      # minor ticks on log axes cost more than the rest of the figure
        ax.yaxis.set_minor_locator(NullLocator())
    problems = [f for f in findings if f.severity in ("warning", "error")]
    headline = "healthy: no problems found" if not problems else "found: " + ", ".join(
        f"{f.code} ({f.severity})" for f in problems[:4]) + (" ..." if len(problems) > 4 else "")
    figure.suptitle(f"{title or 'nndebug watch'} - {run.n_steps} steps, "
                    f"{len(run.records)} recorded\n{headline}", fontsize=12,
                    color=SEVERITY_COLOURS[problems[0].severity] if problems else "#27ae60")
    # fixed margins: tight_layout would cost more than drawing the whole figure
    figure.subplots_adjust(left=0.06, right=0.93, bottom=0.09, top=0.88, hspace=0.42, wspace=0.28)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    figure.savefig(path)
    return path
