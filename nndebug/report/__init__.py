"""Reports of a watched run: text (``text``), JSON (``json``), PNG plots (``plots``, needs
matplotlib) and TensorBoard event files (``tensorboard``, needs torch or tensorboardX).

Each takes the plain ``RunRecord`` and the findings; none imports a deep-learning framework
except the TensorBoard writer, which borrows torch's (or tensorboardX's) SummaryWriter.
"""
