"""The answers the commands compute from a finished run, as plain data: `queries` (eval,
backward, grad, jacobian, hessian), `hints` (where and why for autograd mistakes),
`graphmodel` (the graph walked once for every format) and `sampling` (plot's samples and
kinks; `formula`, the output's source line for a plot's title), each reading a run through `lang.runs` (its output and named tensors); and
`optable`, the op table for `gradcli ops`. Nothing here imports the CLI, a renderer, typer
or rich; the package imports no module of its own, so a command loads only the one it asks.
"""
