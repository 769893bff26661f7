"""Active probes: experiments that train a private copy of the model to test it."""
