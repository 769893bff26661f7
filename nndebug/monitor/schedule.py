"""Which steps the monitor records: pure arithmetic on step numbers, durations and events.

Nothing here touches a model. The monitor tells the schedule what happened (how long the
user's step took, whether it was recorded, what recording cost, that a NaN was seen) and
asks one question: "record the coming step, and is it a judged record?". Tests drive it
with made-up durations.

Two kinds of records (``overhead`` set, the default):

- **Judged** records: the steps the rules judge. Which steps these are depends on the
  step number only, never on the clock, so the same training run gets the same verdict
  on a laptop, a GPU or a busy node (``is_judged_step``): steps 0, 1, 2, then every
  power of two (4, 8, 16, 32, ...: the early phase, where many bugs show, on a log time
  scale), and every ``JUDGED_EVERY``-th step (long runs stay covered late on). These are
  the steps the budget always paid for; more judged steps cost tiny models more than
  a 5% budget (measured with 1.5x the powers of two judged too: 16 records instead of 10
  in 333 steps of a 64-64-10 MLP, 1.34x the plain step time instead of 1.19x).
  After a judged record that saw a NaN or Inf (``escalate()``), the following steps are
  judged too, at most ``ESCALATED_RECORDS`` of them over the run: they show where the
  NaN comes from. A loss that leaps far above its recent range (``loss_jumped``:
  ``loss_jumps.py`` checks every 8 steps, on the loss values alone) judges the next
  ``JUMP_RECORDS`` steps as well: a blow-up growing between two sparse records is
  recorded while its values are still finite.
- **Extra** records: beyond those, the monitor may spend a share ``overhead`` of the
  training time. It times the steps it does not record (their median is what a plain
  step costs) and what a recorded step costs on top, and spends its time like a token
  bucket: each plain step earns ``overhead * plain`` seconds of credit, each record
  costs what it took beyond a plain step, and a step is recorded while the credit is not
  negative. Extra records depend on the clock: they feed plots, TensorBoard and the
  other sinks, never the rules.

Asking costs too. After each answer the monitor asks ``first_possible_record``: the first
step that could be recorded if nothing but plain steps happen meanwhile (the next judged
step, or the step at which the credit has recovered). It lets the steps before it pass
without asking or reading the clock, and accounts them together at the next question
(``next_record(..., steps=n)``): one duration sample of their mean, the credit of each.
A NaN or a loss jump is noticed on the loss values, at the monitor's check steps.

``every``: at most one judged record every ``every`` steps and one record of any kind
every ``every`` steps (escalation aside). ``overhead=None`` records exactly every
``every`` steps, all judged, and reads no clock.
"""
import math
import time

WARMUP_RECORDS = 3           # steps 0-2 are always judged, then 4, 8, 16, 32, ...
JUDGED_EVERY = 1024          # and every 1024th step: long runs stay covered late on
ESCALATED_RECORDS = 20       # judged records spent, at most, on the steps after a NaN
JUMP_RECORDS = 12            # judged records after the loss leapt far above its recent range
MAX_JUMP_RECORDS = 48        # ... at most this many over the run (loss_jumps.py decides when)
PLAIN_WINDOW = 16            # a plain step's cost: the median of the last 16 plain steps

JUDGED, EXTRA = "judged", "extra"   # what kind of record the coming step is (or None)


def now():
    """The monitor's clock (seconds). Tests replace it to make steps look slow or fast."""
    return time.perf_counter()


_NEVER = 1 << 62                 # "no step": later than any run


def next_judged_step(step):
    """The first step after ``step`` that ``is_judged_step``."""
    if step + 1 < WARMUP_RECORDS:
        return step + 1
    power = 1 << step.bit_length()                       # the next power of two
    return min(power, (step // JUDGED_EVERY + 1) * JUDGED_EVERY)


def is_judged_step(step):
    """Steps 0, 1, 2, 4, 8, 16, 32, ... and every JUDGED_EVERY-th step.

    A function of the step number alone: this is what makes the verdict repeatable.
    """
    return step < WARMUP_RECORDS or step & (step - 1) == 0 or step % JUDGED_EVERY == 0


class Schedule:
    """Decides, step by step, whether the coming step is recorded (see the module doc)."""

    def __init__(self, every=1, overhead=None):
        self.every, self.overhead = every, overhead
        self.credit = 0.0                # seconds the monitor may still spend (token bucket)
        self._plain = []                 # durations of unrecorded steps
        self._plain_median = None        # their median, computed when asked (plain_estimate)
        self._uncharged = []             # recorded steps waiting for a plain-step estimate
        self._escalated_left = ESCALATED_RECORDS
        self._escalate = False
        self._jump_left, self._jump_budget = 0, MAX_JUMP_RECORDS
        self._since_record = 0
        self._last_judged = 0            # step 0 is judged: the monitor starts armed
        self.stopped = False             # an internal error: no more detailed records
        self.closer_look = False         # the coming record is one of a loss jump's or a
                                         # NaN's closer look (not of the regular schedule)

    # --- events ------------------------------------------------------------------------
    def escalate(self):
        """A judged record saw a NaN or Inf: judge the following steps too (up to
        ESCALATED_RECORDS over the run). Call it only on what the training run decides
        (a judged record, the loss values), never on what timing decides."""
        self._escalate = True

    def loss_jumped(self):
        """The loss leapt far above its recent range (``loss_jumps.py``, checked at fixed
        steps on the loss values alone): judge the next JUMP_RECORDS steps while the values
        are still finite, so that a blow-up growing between two sparse records is seen."""
        extra = min(JUMP_RECORDS, self._jump_budget)
        self._jump_budget -= extra
        self._jump_left = max(self._jump_left, extra)

    @property
    def looking_closer(self):
        """The loss jumped (``loss_jumped``) or went NaN/Inf (``escalate``) and the steps after
        it are still to be judged."""
        return (self._jump_left > 0 or (self._escalate and self._escalated_left > 0)) and \
            not self.stopped

    def stop(self):
        """Stop detailed recording for good (the monitor hit an internal error)."""
        self.stopped = True

    def charge(self, seconds):
        """Time spent inside the monitor itself is the monitor's."""
        if self.overhead is not None:
            self.credit -= seconds

    # --- the decision ------------------------------------------------------------------
    def plain_estimate(self):
        """Median duration of the last unrecorded steps, or None before there is one. It is
        worked out again after every PLAIN_WINDOW-th plain step only (and while there are
        fewer): a sort at every step cost more than the estimate gains by being fresh."""
        if self._plain_median is None and self._plain:
            recent = self._plain[-PLAIN_WINDOW:]
            self._plain_median = sorted(recent)[len(recent) // 2]
        return self._plain_median

    def next_record(self, upcoming, interval, was_recorded, steps=1):
        """Account for the step just done; ``JUDGED``, ``EXTRA`` or None for step ``upcoming``.

        ``interval``: seconds from the end of the previous ``step()`` call to the start of
        this one (the user's own step; None when unknown). ``was_recorded``: whether the
        step just done was recorded. Which steps are judged never depends on ``interval``.
        ``steps``: how many plain steps ``interval`` covers (more than one when the monitor
        let the steps in between pass without asking: ``first_possible_record``).
        """
        if steps > 1 and interval is not None and not was_recorded:
            self._account_plain_steps(interval, steps)
        else:
            self._account(interval, was_recorded)
        self.closer_look = False
        if self._jump_left > 0 and not self.stopped:      # the loss jumped: look closer
            self._jump_left -= 1
            self.closer_look = True
            return self._judged(upcoming)
        if self._escalate and self._escalated_left > 0:
            self._escalated_left -= 1
            self.closer_look = True
            return self._judged(upcoming)
        self._escalate = False
        if self.stopped:
            return None
        if self.overhead is None:
            return self._judged(upcoming) if upcoming % self.every == 0 else None
        if is_judged_step(upcoming) and upcoming - self._last_judged >= self.every:
            return self._judged(upcoming)     # charged to the budget: extra records wait
        if self.credit < 0:
            return None      # the budget is spent (the usual answer: checked first)
        if self._since_record + 1 < self.every or self.plain_estimate() is None:
            return None      # (step 3 runs without hooks: what a step costs unwatched)
        if self.every > 1 and any(is_judged_step(upcoming + k) for k in range(1, self.every)):
            return None      # a judged step comes too soon after: `every` holds for both kinds
        return EXTRA

    def first_possible_record(self, upcoming):
        """The first step after ``upcoming`` that could be recorded, ``upcoming`` being a step
        just decided plain, if nothing happens meanwhile but plain steps (no NaN, no loss
        jump: those are noticed only where the monitor asks ``next_record`` anyway).

        The monitor lets the plain steps before it pass without asking ``next_record`` (one
        step costs it a few microseconds less: that is most of its cost on small models);
        it never answers later than ``next_record`` would, step by step, with plain steps
        as long as the current estimate. An extra record is waited for until the credit
        has recovered: asking sooner costs a full ``step()`` each time, charged to the
        credit, and a credit just below zero could then be spent on asking alone (measured:
        a full ``step()`` at nearly every step of a 0.3 ms MLP step, no record taken)."""
        if self._jump_left > 0 or self._escalate:
            return upcoming + 1
        if self.overhead is None:
            return (upcoming // self.every + 1) * self.every if not self.stopped else _NEVER
        if self.stopped:
            return _NEVER
        first = next_judged_step(upcoming)
        plain = self.plain_estimate()
        if plain is None or plain <= 0:
            return first
        if self.credit >= 0:
            return upcoming + 1
        earned = self.overhead * plain            # credit earned by one plain step
        return min(first, upcoming + max(1, math.ceil(-self.credit / earned)))

    def next_is_recorded(self, upcoming, interval, was_recorded):
        """Whether step ``upcoming`` is recorded at all (judged or extra)."""
        return self.next_record(upcoming, interval, was_recorded) is not None

    def _judged(self, upcoming):
        self._last_judged = upcoming
        return JUDGED

    def _account_plain_steps(self, interval, steps):
        """``steps`` plain steps that took ``interval`` seconds together, none recorded: one
        sample of their mean duration, and the credit of each."""
        self._account(interval / steps, False)
        plain = self.plain_estimate()
        if plain is not None:
            self.credit += (steps - 1) * (self.overhead or 0.0) * plain
        self._since_record += steps - 1

    def _account(self, interval, was_recorded):
        """The token bucket: plain steps earn credit, recorded ones spend what they cost."""
        if interval is not None:
            if was_recorded:
                self._uncharged.append(interval)
            else:
                self._plain.append(interval)
                if len(self._plain) <= PLAIN_WINDOW or len(self._plain) % PLAIN_WINDOW == 0:
                    self._plain_median = None
                if len(self._plain) > 4 * PLAIN_WINDOW:
                    del self._plain[:-PLAIN_WINDOW]
        plain = self.plain_estimate()
        if plain is not None:
            self.credit += (self.overhead or 0.0) * plain
            for recorded_interval in self._uncharged:
                self.credit -= max(0.0, recorded_interval - plain)
            self._uncharged.clear()
        self._since_record = 0 if was_recorded else self._since_record + 1
