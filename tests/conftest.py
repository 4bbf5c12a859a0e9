"""Tests that drive the CLI in-process (CliRunner) run under the CLI's numpy policy:
`gradcli.cli.main` sets inf and nan to flow silently, as PyTorch's do, and so do these."""
import numpy

numpy.seterr(all="ignore")
