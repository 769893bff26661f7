"""A BiLSTM-CRF tagger whose Viterbi decoder walks its back-pointers wrongly: at each step
back it reads the back-pointer table at the tag chosen for the LAST word, instead of at
the tag it has just recovered, so each recovered tag is "the best predecessor of the final
tag" rather than a link of one path. Training is untouched (the forward algorithm is
right); only the decoded tags are wrong, wherever the best tag of a word depends on the
tag after it.

Reported: "fixed a viterbi decode bug" -
https://github.com/threelittlemonkeys/lstm-crf-pytorch/pull/5 (the decoder looked up
``bptr_t[best_tag]`` on every step without assigning the result back to ``best_tag``, so
the newest tag was never used for the next step; the fix chains it,
``best_tag = bptr_t[best_tag]``). Here: the hand-written CRF of
benchmarks/real_bugs/_crf_tagging.py (``viterbi(chained=...)``) on synthetic BIO sentences
whose entity type shows only in the entity's last word, so B-PER against B-LOC is settled
by the path.
Fix: read each back-pointer at the tag recovered one step later.

Measured (300 Adam steps, batch 32, entity F1 on 400 held-out sentences): seed 0, 0.809
with the bug against 0.892 fixed; seeds shifted by 1000, 0.845 against 0.901 (the model is
the same; only the decoding differs).
"""
from benchmarks.real_bugs._crf_tagging import held_out_f1, train_tagger

TITLE = "fixed a viterbi decode bug"
LINK = "https://github.com/threelittlemonkeys/lstm-crf-pytorch/pull/5"
EXPECTED = ("VITERBI_BACKTRACK_NOT_CHAINED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    mon, model, held = train_tagger(steps, **watch)
    # BUG (fixed=False): each back-pointer read at the final tag, never at the one recovered
    mon.held_out_f1 = held_out_f1(model, held, chained=fixed)
    return mon
