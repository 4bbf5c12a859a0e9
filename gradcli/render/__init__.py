"""Output: JSON for scripts (stable), Rich for people, and the error format of SPEC 6."""
