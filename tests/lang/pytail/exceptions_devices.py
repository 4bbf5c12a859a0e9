import torch
x = torch.ones(2)
print(x.is_cuda, x.is_xpu, x.is_mps)
for kind in (OSError, FileNotFoundError, ImportError, KeyboardInterrupt, UserWarning, RuntimeWarning):
    try:
        raise kind('bad')
    except kind as err:
        print(type(err) == kind, str(err))
try:
    raise FileNotFoundError('missing')
except OSError as err:
    print('caught as OSError:', err)
