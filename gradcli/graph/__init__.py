"""The graph record that ops build: nodes and their edges, saved-tensor hooks, node
hooks and the boundary where program code is called back.

It sits above the Tensor and below the ops: `ops/` records nodes here, and the
engine (`autograd/`) walks them. Nothing here runs a backward.
"""
