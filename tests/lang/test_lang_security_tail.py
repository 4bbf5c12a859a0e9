"""Issue 27's additions in the sandbox: plain classes, the standard modules' facades,
torch.utils.data, str.format and the look-up builtins reach no Python object."""
from __future__ import annotations

import pytest

from gradcli.errors import GradcliError
from gradcli.lang import compile_program


def fails(source: str) -> GradcliError:
    with pytest.raises(GradcliError) as info:
        compile_program("import torch\n" + source).run(stdout=lambda line: None, script=True)
    return info.value


@pytest.mark.parametrize("source, message", [
    # plain classes: no dunder read, written or defined beyond the data model's
    ("class A:\n    pass\nA().__class__", "'__'"),
    ("class A:\n    pass\ngetattr(A(), '__dict__')", "names that start and end with '__'"),
    ("class A:\n    pass\nsetattr(A, '__call__', print)", "names that start and end with '__'"),
    ("class A:\n    pass\na = A()\nsetattr(a, '__len__', print)", "'__'"),
    ("class A:\n    def __getattr__(self, n):\n        return 1", "'__'"),
    ("class A:\n    def __init_subclass__(cls):\n        pass", "'__'"),
    ("class A:\n    pass\nA.mro", "type object 'A' has no attribute 'mro'"),
    ("class A:\n    pass\nA().attrs", "'A' object has no attribute 'attrs'"),
    ("class A:\n    pass\nA().program_class", "'A' object has no attribute 'program_class'"),
    ("class A:\n    def __len__(self):\n        return -1\nlen(A())", "__len__() should return >= 0"),
    ("class A:\n    def __repr__(self):\n        return 3\nstr(A())", "__repr__ returned non-string"),
    # the facades: what would touch the world is not there
    ("import sys\nsys.modules", "module 'sys' has no attribute 'modules'"),
    ("import sys\nsys.exit('stop')", "stop"),
    ("import time\ntime.sleep.__call__", "'__'"),
    ("import random\nrandom.Random", "module 'random' has no attribute 'Random'"),
    ("import functools\nfunctools.partial(print, 1).fn", "no attribute 'fn'"),
    ("import argparse\np = argparse.ArgumentParser()\np.add_argument('x')",
     "has no default: a gradcli program has no command line"),
    ("import collections\ncollections.namedtuple", "no attribute 'namedtuple'"),
    ("from torch.utils.data import DataLoader\nDataLoader([1, 2]).attrs", "no attribute 'attrs'"),
    ("import itertools\nlist(itertools.repeat(1, 10 ** 9))", "exceeds the limit"),
    ("import itertools\nlist(itertools.count())", "exceeds the limit"),
    # format and the look-up builtins go through the access policy
    ("'{0.__class__}'.format(1)", "format field '{0.__class__}' is not supported"),
    ("'{:99999999}'.format(1)", "too large"),
    ("'%99999999d' % 1", "too large"),
    ("getattr(torch, '_C')", "module 'torch' has no attribute '_C'"),
    ("getattr(torch.tensor(1.), '_data')", "'Tensor' object has no attribute '_data'"),
    ("type(print).__name__", "'__'"),
    ("next(iter([1])).__class__", "'__'"),
    ("iter([1]).iterator", "'iterator' object has no attribute 'iterator'"),
])
def test_refused(source, message):
    error = fails(source)
    assert message in error.message, error.message


def test_a_plain_instance_is_one_library_class():
    from gradcli.lang.classes import ProgramClass, ProgramObject

    result = compile_program("class A:\n    x = 1\n    def f(self):\n        return 2\n"
                             "a = A()\n").run(stdout=lambda line: None, script=True)
    scope = result.interpreter.module_scope.vars
    assert type(scope["A"]) is ProgramClass and type(scope["a"]) is ProgramObject
