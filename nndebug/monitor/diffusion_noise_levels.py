"""How a diffusion model's training input mixes its clean signal with the noise it is asked
to predict (DIFFUSION_NOISE_SCALE_WRONG, ``nndebug.rules.diffusion_noise_scale``).

A noise-predicting denoiser reads ``x_t = a_t * x_0 + b_t * noise`` and its loss's target is
``noise``. The two coefficients follow the forward process: ``a^2 + b^2 = 1`` for DDPM's
variance-preserving marginal (``sqrt(alpha_bar)``, ``sqrt(1 - alpha_bar)``; EDM's c_in too,
up to a constant), ``a = 1`` for a variance-exploding one (``x_0 + sigma * noise``),
``a + b = 1`` for a straight-line interpolation. Written by hand, the noise is sometimes
scaled by the variance where its square root was meant (``(1 - alpha_bar) * noise``):
then the inputs are less noisy than the schedule says at every level, and the sampler,
which walks the schedule's own levels, shows the network inputs it never saw.

What it reads (torch only; NumPy at findings, nothing during the steps): the kept first
training inputs (``first_training_inputs.py``: the model's first argument on its first
training forwards) paired with the targets the loss capture keeps, when the target has the
input's shape and looks like standard normal noise. Per sample: the noise coefficient
``b = <x_t, noise> / <noise, noise>`` (the signal is uncorrelated with fresh noise) and the
log of the remaining signal's mean square, ``log mean((x_t - b * noise)^2) = log a^2 +
log mean(x_0^2)``. Kept as ``run.observed.diffusion_noise_levels``: ``[(step, [b], [log
signal power])]``, at most ``MAX_SAMPLES`` samples a batch.
"""
import numpy as np

MIN_SAMPLES = 16             # [design] samples a batch needs for its levels to be read
MAX_SAMPLES = 64             # [design] samples kept a batch (rows of the field)
NOISE_MEAN_MAX = 0.1         # [design] |mean| of a target read as standard normal noise
NOISE_STD_RANGE = (0.85, 1.15)   # [design] its std (randn draws: 1 within a few percent)
NOISE_KURTOSIS_RANGE = (2.5, 3.5)   # [design] its kurtosis (Gaussian: 3; a uniform 1.8,
                                    # one-hot or sparse targets far above)
MIN_VALUES = 1024            # [design] values of a target read as noise (the three moments
                             # above are estimated to a few percent)


def noise_levels(x, target):
    """(b per sample, log signal power per sample) of one batch, or None when the target is
    not standard normal noise of the input's shape."""
    if x.shape != target.shape or x.ndim < 2 or x.shape[0] < MIN_SAMPLES or \
            target.dtype.kind != "f" or target.size < MIN_VALUES:
        return None
    noise = target.reshape(target.shape[0], -1).astype(np.float64)
    xt = x.reshape(x.shape[0], -1).astype(np.float64)
    if not (np.isfinite(noise).all() and np.isfinite(xt).all()):
        return None
    mean, std = noise.mean(), noise.std()
    if abs(mean) > NOISE_MEAN_MAX or not NOISE_STD_RANGE[0] <= std <= NOISE_STD_RANGE[1]:
        return None
    kurtosis = float(((noise - mean) ** 4).mean() / std ** 4)
    if not NOISE_KURTOSIS_RANGE[0] <= kurtosis <= NOISE_KURTOSIS_RANGE[1]:
        return None
    power = (noise * noise).sum(axis=1)
    b = (xt * noise).sum(axis=1) / np.maximum(power, 1e-12)
    rest = xt - b[:, None] * noise
    signal = (rest * rest).mean(axis=1)
    keep = signal > 0
    b, signal = b[keep][:MAX_SAMPLES], signal[keep][:MAX_SAMPLES]
    if b.size < MIN_SAMPLES:
        return None
    return [round(float(v), 5) for v in b], [round(float(v), 5) for v in np.log(signal)]


class DiffusionNoiseLevels:
    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``first_training_inputs.FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def read(self):
        """Set ``observed.diffusion_noise_levels`` from the kept inputs and targets (host
        copies, once per findings); a later read that finds nothing keeps what was found."""
        try:
            found = []
            for step, x, target in self.inputs.paired_with(self.observed.targets,
                                                            "first argument"):
                levels = noise_levels(x, target)
                if levels is not None:
                    found.append((step, *levels))
            if found or not self.observed.diffusion_noise_levels:
                self.observed.diffusion_noise_levels = found
        except Exception as error:
            self.on_error(error)
