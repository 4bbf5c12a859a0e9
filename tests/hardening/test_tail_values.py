"""collections.OrderedDict (what state_dict() gives), the classes' printed names and the new
list methods under untrusted programs: an OrderedDict is walked by the nesting and length
limits as a dict is, its constructor takes the language's bounded iterables, it has a
dict's methods only, and no printed class names gradcli's own modules. Real processes
under the CPU and memory rlimits."""
from __future__ import annotations

import pytest

from hardening_helpers import invoke, program_error

C = "from collections import OrderedDict\n"


@pytest.mark.parametrize("source, message", [
    # nested deeper than the value limit inside an OrderedDict: refused when built or printed
    (C + "d = OrderedDict()\nfor i in range(5000):\n    d = OrderedDict(a=d)\nprint(d)", "nested more than"),
    (C + "import itertools\nd = OrderedDict((i, i) for i in itertools.count())", "limit"),
    (C + "d = OrderedDict(a=1)\nd.move_to_end('a')", "has no attribute 'move_to_end'"),
    (C + "d = OrderedDict(a=1)\nd.popitem()", "has no attribute 'popitem'"),
    (C + "d = OrderedDict(a=1)\nc = d.__class__", "names that start and end with '__'"),
    (C + "t = type(OrderedDict())\nm = t.__module__", "names that start and end with '__'"),
    ("import torch\nm = torch.nn.Linear(1, 1)\nsd = m.state_dict()\nsd.update", "has no attribute 'update'"),
    ("l = [1]\nwhile True:\n    l = l.copy()", "steps"),
    ("l = [[1]]\nfor i in range(5000):\n    l = [l]\nc = l.copy()\nprint(c)", "nested more than"),
])
def test_refused_cleanly(source, message):
    program_error("run", "-e", source, message=message)


def test_printed_classes_never_name_gradcli():
    source = ("import torch\nimport torch.nn as nn\nfrom collections import OrderedDict, defaultdict, Counter\n"
              "import argparse\nfrom torch.utils.data import DataLoader, TensorDataset\n"
              "m = nn.Linear(1, 1)\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
              "print(type(m), type(m.weight), type(torch.ones(1)), type(m.state_dict()), type(opt))\n"
              "print(nn.Linear, torch.Tensor, torch.Size, OrderedDict, defaultdict, Counter, DataLoader)\n"
              "print(type(torch.ones(2).shape), argparse.ArgumentParser, TensorDataset, object, type(print))\n")
    result = invoke("run", "-e", source)
    assert result.exit_code == 0, result.output
    assert "gradcli" not in result.stdout and "0x" not in result.stdout, result.stdout
    assert result.stdout.splitlines()[1] == (
        "<class 'torch.nn.modules.linear.Linear'> <class 'torch.Tensor'> <class 'torch.Size'> "
        "<class 'collections.OrderedDict'> <class 'collections.defaultdict'> <class 'collections.Counter'> "
        "<class 'torch.utils.data.dataloader.DataLoader'>")
