"""The Go Text Protocol: an engine that serves imago agents, and a client that drives programs."""
