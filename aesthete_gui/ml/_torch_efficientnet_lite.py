"""EfficientNet-Lite0 defined in torch, matching the state-dict keys of the shipped ImageNet weights.

Lite0 is EfficientNet-B0 without squeeze-and-excitation, with ReLU6 activations and a fixed stem
and head. Convolutions use TensorFlow-style "same" padding (asymmetric for stride 2), which the
weights were trained with. Imported lazily: only ml/encoder.py loads this module.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

BN_EPS = 1e-3
# (expand ratio, kernel, stride, input channels, output channels, repeats) per stage.
STAGES = (
    (1, 3, 1, 32, 16, 1),
    (6, 3, 2, 16, 24, 2),
    (6, 5, 2, 24, 40, 2),
    (6, 3, 2, 40, 80, 3),
    (6, 5, 1, 80, 112, 3),
    (6, 5, 2, 112, 192, 4),
    (6, 3, 1, 192, 320, 1),
)
STEM_CHANNELS = 32
HEAD_CHANNELS = 1280


class SameConv2d(nn.Conv2d):
    """A Conv2d with TensorFlow 'same' padding computed from the input size."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        height, width = x.shape[-2:]
        pads = []
        for size, kernel, stride in zip(
            (width, height), self.kernel_size[::-1], self.stride[::-1], strict=True
        ):
            total = max((math.ceil(size / stride) - 1) * stride + kernel - size, 0)
            pads += [total // 2, total - total // 2]
        return F.conv2d(F.pad(x, pads), self.weight, self.bias, self.stride, 0, 1, self.groups)


class MBConvBlock(nn.Module):
    """Inverted residual block: 1x1 expand, depthwise, 1x1 project; identity skip when shapes match."""

    def __init__(self, expand: int, kernel: int, stride: int, c_in: int, c_out: int) -> None:
        super().__init__()
        hidden = c_in * expand
        self.has_expand = expand != 1
        if self.has_expand:
            self._expand_conv = SameConv2d(c_in, hidden, 1, bias=False)
            self._bn0 = nn.BatchNorm2d(hidden, eps=BN_EPS)
        self._depthwise_conv = SameConv2d(
            hidden, hidden, kernel, stride=stride, groups=hidden, bias=False
        )
        self._bn1 = nn.BatchNorm2d(hidden, eps=BN_EPS)
        self._project_conv = SameConv2d(hidden, c_out, 1, bias=False)
        self._bn2 = nn.BatchNorm2d(c_out, eps=BN_EPS)
        self.skip = stride == 1 and c_in == c_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x
        if self.has_expand:
            out = F.relu6(self._bn0(self._expand_conv(out)))
        out = F.relu6(self._bn1(self._depthwise_conv(out)))
        out = self._bn2(self._project_conv(out))
        return out + x if self.skip else out


class EfficientNetLite0(nn.Module):
    """The network; `features` returns the 1280-d globally pooled embedding."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self._conv_stem = SameConv2d(3, STEM_CHANNELS, 3, stride=2, bias=False)
        self._bn0 = nn.BatchNorm2d(STEM_CHANNELS, eps=BN_EPS)
        blocks = []
        for expand, kernel, stride, c_in, c_out, repeats in STAGES:
            for index in range(repeats):
                blocks.append(
                    MBConvBlock(
                        expand, kernel, stride if index == 0 else 1, c_in if index == 0 else c_out, c_out
                    )
                )
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = SameConv2d(STAGES[-1][4], HEAD_CHANNELS, 1, bias=False)
        self._bn1 = nn.BatchNorm2d(HEAD_CHANNELS, eps=BN_EPS)
        self._fc = nn.Linear(HEAD_CHANNELS, num_classes)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """(n, 1280) pooled embeddings for inputs normalised to [-1, 1]."""
        out = F.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks:
            out = block(out)
        out = F.relu6(self._bn1(self._conv_head(out)))
        return out.mean(dim=(2, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """ImageNet logits."""
        return self._fc(self.features(x))


def load_efficientnet_lite0(weights_path: str) -> EfficientNetLite0:
    """The network with the state dict at `weights_path` (tensors only: weights_only=True)."""
    state = torch.load(weights_path, map_location="cpu", weights_only=True)
    model = EfficientNetLite0()
    model.load_state_dict(state, strict=True)
    return model.eval()
