"""Fine-tuning data preprocessed unlike the pretraining's, seen by the first batch norm that
arrived with pretrained running statistics (``monitor/pretrained_norm_inputs.py``: its
input's per-channel mean and variance on the first recorded step, against the running ones
it was pretrained with).

INPUT_SCALE_UNLIKE_PRETRAINING: that layer's batch variance is 100 times (the scale 10 times)
above or below its pretrained running variance, or the batch mean sits many running standard
deviations away: pixels in [0, 1] fed to a backbone pretrained on caffe-style 0-255 inputs
(keras#3622: bottleneck features at chance), caffe-style inputs fed to a torch-style
backbone (keras#10279). Healthy look-alikes: data from another domain (the scale moves by a
factor of two or three, not ten); a model trained from scratch (no pretrained statistics:
nothing is read).

INPUT_CHANNELS_REORDERED: the first layer is a stem (a 3-channel convolution right before
the batch norm), and the same convolution on the same batch with its channels reversed gives
statistics CHANNEL_ORDER_BETTER_FIT times closer to the pretrained ones: the data comes in
RGB where the backbone learned BGR, or the reverse (techmn/satmae_pp#2). Healthy
look-alikes: the right order (the reversed one fits worse), grey images stacked to three
channels (the two orders fit alike), data from another domain (neither order fits, by
similar distances).
"""
from ..findings import Finding
from .context import fmt
from .graph import rule

PRETRAINED_LOG_VARIANCE_RATIO = 2.0   # [measured] |log10(batch var / running var)| at the
                                      # first pretrained batch norm from which the inputs are
                                      # on another scale (the std 10x off): 3.6 and 4.6 on the
                                      # two wrong recipes of batch 73, under 0.2 on their twins
                                      # and on fine-tuning data of another split
PRETRAINED_MEAN_SHIFT = 10.0          # [measured] median |batch mean - running mean| in
                                      # running stds from which the inputs are off-centre
                                      # (22.6 for caffe inputs into a torch backbone; 0.01-0.4
                                      # for the matched recipes, domain shifts a few)
CHANNEL_ORDER_BETTER_FIT = 2.5        # [measured] the reversed channel order's distance to the
                                      # pretrained statistics this many times smaller than the
                                      # given order's (3.7-10x on batch 73's RGB-for-BGR case
                                      # over four seeds; 1x for grey stacks, where the two
                                      # orders are the same images)
CHANNEL_ORDER_MIN_DISTANCE = 0.1      # [measured] the given order's distance (mean shift in
                                      # running stds + |log10 variance ratio|) at least this:
                                      # batch noise puts matched data at 0.02-0.05


def _first_layer(ctx):
    rows = getattr(ctx.run.observed, "pretrained_norm_inputs", None) or []
    rows = [r for r in rows if r[4] is not None and r[5] is not None]
    return min(rows, key=lambda r: r[1]) if rows else None


@rule(produces="INPUT_SCALE_UNLIKE_PRETRAINING",
      explains={"DEAD_RELU", "LOSS_AT_CHANCE", "LOSS_PLATEAU",
                "SATURATED_ACTIVATIONS", "EXPLODING_ACTIVATIONS", "COLLAPSED_ACTIVATIONS",
                "VANISHING_GRADIENTS", "OVERFITTING", "VALIDATION_NEVER_IMPROVED"})
def input_scale_unlike_pretraining(ctx):
    row = _first_layer(ctx)
    if row is None:
        return None
    name, _, channels, training, shift, log_ratio, _ = row
    if abs(log_ratio) < PRETRAINED_LOG_VARIANCE_RATIO and shift < PRETRAINED_MEAN_SHIFT:
        return None
    how = (f"{fmt(10 ** (log_ratio / 2))} times {'larger' if log_ratio > 0 else 'smaller'} "
           "in scale" if abs(log_ratio) >= PRETRAINED_LOG_VARIANCE_RATIO else
           f"off-centre by {fmt(shift)} running standard deviations")
    return Finding(
        code="INPUT_SCALE_UNLIKE_PRETRAINING", severity="warning", where=name, step=None,
        message=f"Batch norm '{name}' came with pretrained running statistics, and on the first "
                f"training batch its input was {how} than the inputs it was pretrained on "
                f"(median over its {channels} channels: variance ratio 10^{fmt(log_ratio)}, "
                f"mean {fmt(shift)} running stds away). The data is not preprocessed the way "
                "the pretrained model's was: its features start far from what they learned"
                + (" (in eval mode the layer normalises with the pretrained statistics, so the "
                   "mismatch reaches every later layer)." if not training else "."),
        evidence={"layer": name, "log10_variance_ratio": log_ratio, "mean_shift_stds": shift,
                  "channels": channels, "training_mode": training,
                  "threshold_log10_variance_ratio": PRETRAINED_LOG_VARIANCE_RATIO,
                  "threshold_mean_shift": PRETRAINED_MEAN_SHIFT},
        fix="Preprocess as the checkpoint was trained: the same pixel range (0-255 or 0-1), "
            "the same mean and std, the same channel order - the model's own "
            "preprocess_input / transforms (Keras: caffe mode for VGG16/ResNet50, torch mode "
            "for DenseNet; torchvision: ToTensor then the ImageNet mean and std).")


@rule(produces="INPUT_CHANNELS_REORDERED", reads={"INPUT_SCALE_UNLIKE_PRETRAINING"},
      explains={"LOSS_PLATEAU", "OVERFITTING",
                "VALIDATION_NEVER_IMPROVED"})
def input_channels_reordered(ctx):
    if "INPUT_SCALE_UNLIKE_PRETRAINING" in ctx.found:
        return None
    row = _first_layer(ctx)
    if row is None or not row[6] or row[6][0] is None or row[6][1] is None:
        return None
    name, _, channels, _, shift, log_ratio, turned = row
    given = shift + abs(log_ratio)
    reordered = turned[0] + abs(turned[1])
    if given < CHANNEL_ORDER_MIN_DISTANCE or given < CHANNEL_ORDER_BETTER_FIT * reordered:
        return None
    return Finding(
        code="INPUT_CHANNELS_REORDERED", severity="warning", where=name, step=None,
        message=f"The stem convolution before batch norm '{name}' gives statistics "
                f"{fmt(given / max(reordered, 1e-12))} times closer to the layer's pretrained "
                f"running statistics when the input's channels are reversed (distance "
                f"{fmt(reordered)} against {fmt(given)}): the images come in the other channel "
                "order than the model was pretrained on (RGB for BGR, or the reverse).",
        evidence={"layer": name, "distance_given_order": given,
                  "distance_reversed_order": reordered, "channels": channels,
                  "threshold_better_fit": CHANNEL_ORDER_BETTER_FIT,
                  "threshold_min_distance": CHANNEL_ORDER_MIN_DISTANCE},
        fix="Feed the channel order the checkpoint was trained on: OpenCV reads BGR "
            "(cv2.cvtColor(img, cv2.COLOR_BGR2RGB) for torchvision models), caffe-converted "
            "models expect BGR; or flip the first convolution's input channels once.")
