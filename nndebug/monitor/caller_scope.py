"""The user's frames around a ``watch`` call: where a training loop keeps what it does not
hand to watch (a DataLoader, a checkpoint's state dict), read as locals.

Observers that look there (``scoped_loaders.py``, ``unloaded_checkpoints.py``) walk out from
the frame that called them, skip nndebug's own frames (a ``with nd.watch(...)`` enters
through several), and stop after a few of the user's: the loop's function and its callers.
"""


def user_frames(frame, limit):
    """The frames from ``frame`` outwards whose module is not nndebug's, at most ``limit``."""
    users = 0
    while frame is not None and users < limit:
        if not str(frame.f_globals.get("__name__", "")).startswith("nndebug"):
            users += 1
            yield frame
        frame = frame.f_back
