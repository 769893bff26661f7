"""Nothing falls between recorded steps: the loss of every step decides when to look closer.

Detailed records are sparse (steps 0, 1, 2, 4, 8, 16, ... and what the time budget
allows), so a blow-up that starts at step 35 can reach Inf before the next one, and the
records after it say only "NaN". The loss, though, is kept for every step. Every
``LOSS_CHECK_EVERY`` steps the monitor copies the waiting losses to the host (one small
transfer) and asks ``first_jump``: did a loss leap far above its recent range? If so, the
schedule records the next ``JUMP_RECORDS`` steps in detail (``Schedule.loss_jumped``), while
the values are still finite: the update sizes and gradient norms of those steps name the
cause (LR_TOO_HIGH, EXPLODING_GRADIENTS) and the step it started. A NaN or Inf loss among
the checked ones judges the next steps too (``Schedule.escalate``, as a judged record that
saw one does): a loss that goes NaN at step 271, between the judged steps 256 and 512, is
looked at from step 272 on, where the operation that makes the NaN is still at work.

Deterministic: the check runs at step numbers fixed in advance and reads only loss values,
so the same run escalates at the same steps on any machine, at any speed.
"""
import bisect
import math

LOSS_CHECK_EVERY = 8      # [design] losses are checked every 8 steps: a blow-up that doubles
                          # the loss each step is caught within 8 steps, long before float32
                          # overflows (2^128)
JUMP_WINDOW = 32          # [design] the recent range: the 32 finite losses before the one judged
JUMP_MIN_HISTORY = 8      # [design] fewer earlier losses than this: no verdict
JUMP_RANGES = 1.0         # [design] a jump clears the recent maximum by the recent range
                          # (max - min) ...
JUMP_RATIO = 2.0          # [design] ... and is more than twice the recent median: an ordinary
                          # minibatch spike rarely does both
CLIMB_RECENT = 8          # [design] a climb: the median of the newest 8 losses (the judged
                          # one and the 7 before it) ...
CLIMB_RATIO = 2.0         # [design] ... clears the maximum of the earlier losses of the window
                          # and twice their median: a loss that doubles over a few steps and
                          # stays up (an unclipped RNN's blow-up growing ~1.3x a step, whose
                          # noisy rise never clears the range of the window it drags up with
                          # it); one minibatch spike moves no median of 8
KEPT_LOSSES = JUMP_WINDOW + 2 * LOSS_CHECK_EVERY   # the newest losses kept for the check


def first_jump(losses, start=0):
    """Index of the first loss at or after ``start`` that leaps far above the finite losses
    before it (see the thresholds above), or None. Non-finite losses are not jumps here:
    the monitor escalates on NaN by itself."""
    isfinite = math.isfinite
    first = max(start, JUMP_MIN_HISTORY)
    if _no_jump_possible(losses, first):
        return None
    for i in range(first, len(losses)):
        value = losses[i]
        if not isfinite(value):
            continue
        history = losses[max(0, i - JUMP_WINDOW):i]
        if not all(map(isfinite, history)):
            history = [v for v in history if isfinite(v)]
            if len(history) < JUMP_MIN_HISTORY:
                continue
        high = max(history)
        if value <= high:         # the common case, decided before the costlier median
            continue
        low = min(history)
        median = sorted(history)[len(history) // 2]
        if value > high + JUMP_RANGES * (high - low) and value > JUMP_RATIO * abs(median):
            return i
        if _climbed(history, value):
            return i
    return None


def _climbed(history, value):
    """The newest CLIMB_RECENT losses (``value`` and the end of ``history``, finite ones)
    have a median above every earlier loss of the window and above CLIMB_RATIO times their
    median: the loss rose and stayed up, however gradually."""
    recent = history[len(history) - (CLIMB_RECENT - 1):] + [value]
    earlier = history[:len(history) - (CLIMB_RECENT - 1)]
    if len(earlier) < JUMP_MIN_HISTORY:
        return False
    middle = sorted(recent)[len(recent) // 2]
    return middle > max(earlier) and middle > CLIMB_RATIO * abs(sorted(earlier)[len(earlier) // 2])


def _no_jump_possible(losses, first):
    """The usual answer, found in a few passes: every loss from ``first`` on is finite and
    none rises above the maximum of the losses all their windows share (the JUMP_WINDOW
    losses before the last one's): a window's maximum is at least theirs, and a jump or a
    climb needs a loss above its own window's maximum."""
    shared = losses[max(0, len(losses) - 1 - JUMP_WINDOW):first]
    judged = losses[first:]
    if len(shared) < JUMP_MIN_HISTORY or not judged:
        return not judged
    if not all(map(math.isfinite, shared)) or not all(map(math.isfinite, judged)):
        return False
    return max(judged) <= max(shared)


class LossJumps:
    """Checks the newest losses at fixed steps; remembers the last step it judged."""

    def __init__(self):
        self.last_step = -1       # losses of steps up to this one were judged already
        self.jumps = []           # steps whose loss jumped (each escalated the schedule)
        self.newest_nonfinite = None   # the first NaN/Inf loss among those the last check
                                       # judged (a step), or None
        self._steps, self._losses = [], []    # the newest losses, as they arrive (observe)

    @staticmethod
    def is_check_step(step):
        """After step ``step``'s loss arrives: check now? (a function of the step number)"""
        return (step + 1) % LOSS_CHECK_EVERY == 0

    @staticmethod
    def next_check_step(step):
        """The first check step at or after ``step``."""
        return step + (-(step + 1)) % LOSS_CHECK_EVERY

    def check_newest(self):
        """Judge the kept losses (``observe``) of the steps after ``last_step``, with the
        ``JUMP_WINDOW`` before them as their recent range. Returns the step of the first
        jump, or None."""
        steps, losses = self._steps, self._losses
        start = len(steps)
        while start > 0 and steps[start - 1] > self.last_step:
            start -= 1
        if steps:
            self.last_step = steps[-1]
        self.newest_nonfinite = next((steps[i] for i in range(start, len(losses))
                                      if not math.isfinite(losses[i])), None)
        found = first_jump(losses, start)
        if found is None:
            return None
        self.jumps.append(steps[found])
        return steps[found]

    def observe(self, steps, losses):
        """Training losses as they arrive (ints and floats, in step order), kept for
        ``check_newest``: the newest few only. Steps seen already are skipped: the monitor
        hands the same losses over twice, once from its pending list at a check step and
        again when they move into the run."""
        if self._steps and steps and steps[0] <= self._steps[-1]:
            first_new = bisect.bisect_right(steps, self._steps[-1])
            steps, losses = steps[first_new:], losses[first_new:]
        self._steps.extend(steps)
        self._losses.extend(losses)
        if len(self._steps) > 2 * KEPT_LOSSES:
            del self._steps[:-KEPT_LOSSES], self._losses[:-KEPT_LOSSES]

    def resume(self, run):
        """A run restored from a checkpoint: its newest losses (a slice: the cost does not
        grow with the run's length) are the recent range of the losses to come, and were
        judged before the restart."""
        steps = [int(s) for s in run.loss_steps[-KEPT_LOSSES:]]
        self.observe(steps, [float(v) for v in run.losses[-KEPT_LOSSES:]])
        if steps:
            self.last_step = max(self.last_step, steps[-1])
