# The warnings module: warn, filterwarnings, simplefilter, catch_warnings, resetwarnings.
import warnings
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(y.grad)
warnings.warn("my own warning")
warnings.warn("deprecated thing", DeprecationWarning)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print(y.grad)
print(y.grad)
warnings.filterwarnings("ignore", message="The .grad attribute")
print(y.grad)
warnings.filterwarnings("error", category=RuntimeWarning)
try:
    warnings.warn("boom", RuntimeWarning)
except RuntimeWarning as e:
    print("caught", e)
warnings.resetwarnings()
for i in range(2):
    warnings.warn(UserWarning("twice in a loop, shown once"))
warnings.simplefilter("always")
for i in range(2):
    warnings.warn("always shown")
warnings.simplefilter("ignore")
print(y.grad)
warnings.simplefilter("default")
warnings.filterwarnings("ignore", message=".*not a leaf")
print(y.grad)
warnings.filterwarnings("ignore", category=UserWarning, lineno=32)
warnings.warn("a line's own filter")
warnings.warn("on another line")
print("end")
