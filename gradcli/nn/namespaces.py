"""The dotted namespaces under torch.nn that programs name: `nn.utils`, `nn.utils.rnn`,
`nn.modules.<file>` (PyTorch's module files, where scripts and printed types find the
classes: `torch.nn.modules.rnn.LSTM`). Each maps a dotted path to its members; the
language makes a namespace of each (`gradcli.lang.builtins`)."""
from __future__ import annotations

from . import packed as _packed, utils as _utils

# PyTorch's file under torch/nn/modules for each class gradcli has.
_FILES = {
    "module": ("Module",),
    "activation": ("ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softplus", "Softmax",
                   "LogSoftmax", "PReLU", "MultiheadAttention", "ReLU6", "Hardtanh", "SELU", "CELU", "Mish",
                   "Hardswish", "Hardsigmoid", "GLU", "Threshold", "Softmin", "Softsign", "LogSigmoid",
                   "Tanhshrink"),
    "distance": ("CosineSimilarity", "PairwiseDistance"),
    "container": ("Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"),
    "linear": ("Linear", "Bilinear", "Identity", "LazyLinear", "NonDynamicallyQuantizableLinear"),
    "conv": ("Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "LazyConv1d", "LazyConv2d"),
    "pooling": ("MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
                "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"),
    "dropout": ("Dropout", "Dropout1d", "Dropout2d"),
    "normalization": ("LayerNorm",),
    "batchnorm": ("BatchNorm1d", "BatchNorm2d", "LazyBatchNorm1d", "LazyBatchNorm2d"),
    "instancenorm": ("InstanceNorm1d", "InstanceNorm2d"),
    "sparse": ("Embedding", "EmbeddingBag"),
    "flatten": ("Flatten", "Unflatten"),
    "rnn": ("RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"),
    "transformer": ("Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
                    "TransformerDecoderLayer"),
    "pixelshuffle": ("PixelShuffle", "PixelUnshuffle"),
    "padding": ("ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
                "ReplicationPad1d", "ReplicationPad2d"),
    "loss": ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
             "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
             "CosineEmbeddingLoss", "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
             "MultiLabelSoftMarginLoss", "MultiMarginLoss"),
}


def dotted(nn_members: dict) -> dict:
    """Dotted path under torch.nn -> its members (those of `nn_members`, the torch.nn namespace's
    classes, that exist), parents before children."""
    out = {"utils": {name: getattr(_utils, name) for name in _utils.__all__},
           "utils.rnn": {"pad_sequence": _packed.pad_sequence,
                         **{name: getattr(_packed, name) for name in _packed.__all__}},
           "modules": {}}
    for file, names in _FILES.items():
        out[f"modules.{file}"] = {name: nn_members[name] for name in names if name in nn_members}
    return out

