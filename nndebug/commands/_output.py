"""Where a command writes a file the user asked for (--json, --csv, --plot).

Checked before any work starts, so that a typo in a folder name costs one line and
exit code 2, not a finished ten-second check followed by a traceback.
"""
import os

from ..cli import UsageError


def output_file(path, flag, default_name, *, suffix=None):
    """The file to write for ``--flag PATH``.

    PATH an existing folder: the file ``default_name`` inside it (what a user who names a
    folder means). PATH inside a folder that does not exist: a ``UsageError`` saying so.
    ``suffix`` (".png"): added when PATH has no extension, as the plotting library would
    silently do - so the file named in "wrote ..." is the file written.
    """
    if os.path.isdir(path):
        return os.path.join(path, default_name)
    if suffix and not os.path.splitext(path)[1]:
        path += suffix
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{flag} {path}: the folder {os.path.dirname(path) or folder} does not "
                         f"exist; create it first (mkdir -p) or write somewhere else")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"{flag} {path}: the folder {folder} is not writable; choose another place")
    return path
