"""API plumbing shared by every app: the envelope, error codes, throttling, scoping."""
