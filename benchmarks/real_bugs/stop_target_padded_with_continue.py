"""A Tacotron-style decoder whose stop-token targets are padded with 0 ("go on") instead
of 1 ("stop"). Each utterance's stop target is 0 on its frames and 1 on its last frame;
batching pads it to the longest utterance with 0, and the stop-net loss meant to be masked
to the real frames is not (the mask was built from the frame count, not the decoder-step
count, so it covers everything). Every padded frame after the end therefore teaches the
decoder NOT to stop; only the single last frame says stop. At synthesis time an utterance
whose last frame's stop probability stays under 0.5 runs on, since the decoder has learnt
that the frames after the end continue.

Reported: "May be bug discover about the stop_token and stop_target." -
https://github.com/mozilla/TTS/issues/606 (the reporter found both causes: the stop-net
loss's mask did not act, because the length it used was the spectrogram's frame count, not
divided by the reduction factor, and the stop target was padded with 0 where it should be
1; the issue is closed, the copy read holds the report only). The same project's successor
later agreed that the frames after the end must be trained as "stop" ("[Bug] BCELoss should
not be masked", https://github.com/coqui-ai/TTS/issues/1192). Here: TacoLite
(benchmarks/real_bugs/_tts.py), a GRU decoder fed the previous frame, on a synthetic
phoneme-to-mel corpus whose last phoneme is held a random 0..3 extra frames; the loss runs
over all frames as in the report. Fix: pad the stop target with 1 (1 from the last real
frame on).

Measured (300 Adam steps, batch 32, 384 held-out utterances; teacher-forced stop recall on
the frames from the last one on, and free-running synthesis stopped at the first frame with
p(stop) > 0.5, cut at 40 frames): seed 0, stop recall past the end 0.11 for the bug against
0.995 for the fixed twin; utterances stopped within one frame of the true length 0.22
against 0.63 (1% never stop against 0%). Seeds shifted by 1000: recall 0.11 against 0.99,
within one frame 0.23 against 0.68.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._tts import (TRAIN, TacoLite, corpus, frame_mask, index_batches,
                                       stop_report)

TITLE = "May be bug discover about the stop_token and stop_target."
LINK = "https://github.com/mozilla/TTS/issues/606"
EXPECTED = ("STOP_TARGET_PADDED_AS_CONTINUE",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = corpus(seed=0, final_lengthening=True)
    model = TacoLite()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    pos_weight = torch.tensor(5.0)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, seed=0):
            text, text_len = train["text"][index], train["text_len"][index]
            mel, mel_len = train["mel"][index], train["mel_len"][index]
            mask = frame_mask(mel_len)
            stop_target = (~frame_mask(mel_len - 1)).float()   # 1 from the last real frame on
            optimizer.zero_grad()
            mel_out, stop_logit = model(text, text_len, mel)
            mel_loss = ((mel_out - mel) ** 2).mean(-1)[mask].mean()
            if not fixed:      # BUG: padded with 0, the frames after the end say "go on"
                stop_target = stop_target * mask.float()
            stop_loss = F.binary_cross_entropy_with_logits(stop_logit, stop_target,
                                                           pos_weight=pos_weight)
            loss = mel_loss + stop_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_stop = stop_report(model, held)
    return mon
