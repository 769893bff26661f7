"""Which steps the monitor records: pure arithmetic on step numbers, durations and events.

Nothing here touches a model. The monitor tells the schedule what happened (how long the
user's step took, whether it was recorded, what recording cost, that a NaN was seen) and
asks one question: "record the coming step?". Tests drive it with made-up durations.

How it decides (``overhead`` set, the default):

- Steps 0, 1, 2 and every power of two (4, 8, 16, ...) are always recorded: the early
  phase, where many bugs show, on a log time scale.
- Beyond those, the monitor may spend a share ``overhead`` of the training time. It times
  the steps it does not record (their median is what a plain step costs) and what a
  recorded step costs on top, and spends its time like a token bucket: each plain step
  earns ``overhead * plain`` seconds of credit, each record costs what it took beyond a
  plain step, and a step is recorded while the credit is not negative. Tiny models get a
  record every ~10-20 steps, big ones every step.
- A NaN seen anywhere (``escalate()``) records the next steps too, at most
  ``ESCALATED_RECORDS`` of them over the run: they show where the NaN comes from.
- ``every``: at most one record every ``every`` steps (escalation aside).

``overhead=None`` records exactly every ``every`` steps: no clock at all.
"""
import time

WARMUP_RECORDS = 3           # steps 0-2 are always recorded, then steps 4, 8, 16, 32, ...
ESCALATED_RECORDS = 20       # records spent, at most, on the steps after a NaN is seen
PLAIN_WINDOW = 16            # a plain step's cost: the median of the last 16 plain steps


def now():
    """The monitor's clock (seconds). Tests replace it to make steps look slow or fast."""
    return time.perf_counter()


def is_warmup_step(step):
    """Steps 0, 1, 2, 4, 8, 16, ...: recorded whatever the time budget says."""
    return step < WARMUP_RECORDS or step & (step - 1) == 0


class Schedule:
    """Decides, step by step, whether the coming step is recorded (see the module doc)."""

    def __init__(self, every=1, overhead=None):
        self.every, self.overhead = every, overhead
        self.credit = 0.0                # seconds the monitor may still spend (token bucket)
        self._plain = []                 # durations of unrecorded steps
        self._uncharged = []             # recorded steps waiting for a plain-step estimate
        self._escalated_left = ESCALATED_RECORDS
        self._escalate = False
        self._since_record = 0
        self.stopped = False             # an internal error: no more detailed records

    # --- events ------------------------------------------------------------------------
    def escalate(self):
        """A NaN or Inf was seen: record the following steps (up to ESCALATED_RECORDS)."""
        self._escalate = True

    def stop(self):
        """Stop detailed recording for good (the monitor hit an internal error)."""
        self.stopped = True

    def charge(self, seconds):
        """Time spent inside the monitor itself is the monitor's."""
        if self.overhead is not None:
            self.credit -= seconds

    # --- the decision ------------------------------------------------------------------
    def plain_estimate(self):
        """Median duration of the last unrecorded steps, or None before there is one."""
        recent = self._plain[-PLAIN_WINDOW:]
        if not recent:
            return None
        return sorted(recent)[len(recent) // 2]

    def next_is_recorded(self, upcoming, interval, was_recorded):
        """Account for the step just done and decide about step ``upcoming``.

        ``interval``: seconds from the end of the previous ``step()`` call to the start of
        this one (the user's own step; None when unknown). ``was_recorded``: whether the
        step just done was recorded.
        """
        if interval is not None:
            if was_recorded:
                self._uncharged.append(interval)
            else:
                self._plain.append(interval)
                if len(self._plain) > 4 * PLAIN_WINDOW:
                    del self._plain[:-PLAIN_WINDOW]
        plain = self.plain_estimate()
        if plain is not None:
            self.credit += (self.overhead or 0.0) * plain
            for recorded_interval in self._uncharged:
                self.credit -= max(0.0, recorded_interval - plain)
            self._uncharged.clear()
        self._since_record = 0 if was_recorded else self._since_record + 1
        if self._escalate and self._escalated_left > 0:
            self._escalated_left -= 1
            return True
        self._escalate = False
        if self.stopped:
            return False
        if self.overhead is None:
            return upcoming % self.every == 0
        if self._since_record + 1 < self.every:
            return False
        if is_warmup_step(upcoming):
            return True      # charged to the budget like any record: later records wait
        if plain is None:
            return False     # step 3 runs without hooks: what a step costs unwatched
        return self.credit >= 0
