import torch
from torch.func import vmap

# randomness: "error", "same", "different"
x = torch.zeros(4, 3)
torch.manual_seed(0)
for mode in ["error", "same", "different"]:
    try:
        r = vmap(lambda a: a + torch.randn(3), randomness=mode)(x)
        print(mode, r.shape, bool((r[0] == r[1]).all()), bool((r[2] == r[3]).all()))
    except RuntimeError as e:
        print(mode, "RuntimeError", e)
r = vmap(lambda a: torch.nn.functional.dropout(a + 1, 0.5), randomness="same")(torch.zeros(3, 8))
print(r.shape, bool((r[0] == r[1]).all()))
print(vmap(lambda a: a + torch.ones(3), randomness="error")(x))
try:
    vmap(lambda a: torch.nn.functional.dropout(a, 0.5))(x)
except RuntimeError as e:
    print("RuntimeError", e)
print(vmap(lambda a: torch.nn.functional.dropout(a, 0.5, training=False))(x).shape)
