"""API plumbing every app shares: the envelope and error codes, body parsing, throttling, the
caller's address and the hot-path shortcut. It imports no project app; apps build on it."""
