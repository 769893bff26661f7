"""The parameters stored in a 16-bit float format (UPDATES_ROUNDED_AWAY,
``nndebug.rules.low_precision_updates``).

An optimizer that writes its update straight into a bfloat16 or float16 weight rounds the
new value to that format: bfloat16 keeps 8 significant bits, so a weight near 1.0 moves in
steps of 1/128 and any update below half a step is lost. Mixed-precision recipes keep a
float32 master copy for that reason.

Read when findings are asked for: one pass over the model's parameters. No per-step cost.
Kept in ``run.observed.parameter_dtypes`` as ``{parameter name: "bfloat16" | "float16"}``
(empty when every parameter is stored in 32 or 64 bits).
"""
LOW_PRECISION = ("bfloat16", "float16")


def read_parameter_dtypes(adapter, observed, on_error):
    try:
        found = {}
        for name, parameter in adapter.named_parameters():
            dtype = str(getattr(parameter, "dtype", "")).replace("torch.", "")
            if dtype in LOW_PRECISION:
                found[name] = dtype
        observed.parameter_dtypes = found
    except Exception as error:            # never break the user's run
        on_error(error)
