from __future__ import annotations
import argparse
import sys
import time
import random
from collections import OrderedDict, defaultdict, Counter
import itertools
import functools
from typing import List, Optional
from dataclasses import dataclass
import torch
from torch.utils.data import DataLoader, TensorDataset, Dataset, random_split

@dataclass
class GPTConfig:
    block_size: int = 8
    n_embd: int = 4
    dropout: float = 0.0

def main():
    parser = argparse.ArgumentParser(description='demo')
    parser.add_argument('--batch-size', type=int, default=4, metavar='N', help='x')
    parser.add_argument('--lr', type=float, default=0.1)
    parser.add_argument('--no-cuda', action='store_true', default=False)
    parser.add_argument('--epochs', type=int, default=2)
    args = parser.parse_args()
    print(args.batch_size, args.lr, args.no_cuda, sys.argv[0][-3:] == '.py')
    c = GPTConfig(n_embd=6)
    print(c, c.block_size)
    d = OrderedDict([('a', 1), ('b', 2)])
    dd = defaultdict(list)
    dd['x'].append(1)
    print(d['b'], dict(dd), Counter('abca').most_common(1))
    print(list(itertools.product([1, 2], ['a'])), functools.reduce(lambda a, b: a + b, [1, 2, 3]))
    t0 = time.time()
    x = torch.arange(10.).reshape(5, 2)
    y = torch.arange(5)
    ds = TensorDataset(x, y)
    print(len(ds), ds[1])
    loader = DataLoader(ds, batch_size=2, shuffle=False)
    for i, (xb, yb) in enumerate(loader):
        print(i, xb.shape, yb)
    print(len(loader), len(DataLoader(ds, batch_size=2, drop_last=True)))
    xb, yb = next(iter(loader))
    print(xb)
    class Squares(Dataset):
        def __init__(self, n):
            self.n = n
        def __len__(self):
            return self.n
        def __getitem__(self, i):
            return torch.tensor([float(i)]), i * i
    for xb, yb in DataLoader(Squares(3), batch_size=2):
        print(xb, yb)
    a, b = random_split(ds, [3, 2])
    print(len(a), len(b))
    print(time.time() - t0 < 60)

if __name__ == '__main__':
    main()
