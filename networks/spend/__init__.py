"""Ad spend pulled from the networks' reporting APIs (docs/networks.md, "Ad spend"): each app's
cost connections, the pulls that run as an outbox kind, and the pure reading they share."""
