"""A Tacotron-1-style decoder (no stop token: synthesis ends when the decoder emits a
silent frame) trained with its mel loss masked to the real frames. The spectrograms are
padded with zeros - silence - after the end, but the masked loss never scores a padded
frame, so the decoder is never taught to fall silent after the text is spoken. At
synthesis it never produces the silent frame that would end the utterance and runs on to
the decoding limit. The masked loss is the usual "correct" choice for padded batches,
which is what makes this easy to miss.

Reported: "reconstruct the zero-padded frames" - https://github.com/keithito/tacotron/issues/173
(the reporter, chasing echo and over-long output, quotes the Tacotron paper's finding:
models trained with a loss mask on the zero-padded frames do not know when to stop
emitting outputs, causing repeated sounds towards the end, and the paper's trick is to
reconstruct the zero-padded frames too; the reply: either that, or train explicit stop
token targets synchronised with the mel targets). The same point was made in mozilla/TTS
#10 (masked loss, no prediction of the padding, the model does not detect the sentence's
end). Here: TacoLite (benchmarks/real_bugs/_tts.py) without a stop head, a GRU decoder fed
the previous frame through a dropout pre-net, on a synthetic phoneme-to-mel corpus.
Fix: the mel loss over every frame, the zero padding included.

Measured (300 Adam steps, batch 32, 384 held-out utterances synthesised free-running until
the first silent frame - every bin within 0.25 of 0 - cut at 40 frames): seed 0, the bug
never falls silent on any utterance (1.00 run to the limit, 0.00 end within one frame of
the true length) against 0.00 and 0.54 for the fixed twin. Seeds shifted by 1000: 1.00 and
0.00 against 0.00 and 0.51.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._tts import (TRAIN, TacoLite, corpus, frame_mask, index_batches,
                                       silence_length_report)

TITLE = "reconstruct the zero-padded frames"
LINK = "https://github.com/keithito/tacotron/issues/173"
EXPECTED = ("LOSS_MASK_HIDES_END_OF_SEQUENCE",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held = corpus(seed=0)
    model = TacoLite(prenet_dropout=0.5, stop_head=False)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, seed=0):
            text, text_len = train["text"][index], train["text_len"][index]
            mel, mel_len = train["mel"][index], train["mel_len"][index]
            optimizer.zero_grad()
            mel_out, _ = model(text, text_len, mel)
            error = ((mel_out - mel) ** 2).mean(-1)
            if fixed:
                loss = error.mean()       # the zero-padded frames reconstructed too
            else:             # BUG: the loss masked to the real frames, silence never taught
                loss = error[frame_mask(mel_len)].mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out = silence_length_report(model, held)
    return mon
