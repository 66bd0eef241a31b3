"""A model's size from its architecture config alone: the parameters `from_pretrained` will allocate.

The memory check must not trust the weights file: a folder whose config describes billions of
parameters behind a tiny safetensors header would allocate them all before the first tensor is
read. This counts the weight matrices a transformer of the config's shape has — embeddings, each
layer's attention and (gated or plain, dense or mixture-of-experts) MLP, the output layer unless
tied, and a vision tower with its patch embedding and merger — from the config's own numbers.
Norms and biases are included; rotary tables and other buffers are not (they are small). Read
without importing transformers or torch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_GATED_ACTIVATIONS = {"silu", "swiglu", "swish", "gelu_pytorch_tanh_gated", "geglu"}


def _number(config: Mapping[str, Any], *names: str, default: int = 0) -> int:
    """The first of `names` that is a positive whole number in `config`, else `default`."""
    for name in names:
        value = config.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return default


def text_parameters(text: Mapping[str, Any], tied: bool) -> int:
    """Parameters of a decoder-only language model described by `text` (a text config)."""
    hidden = _number(text, "hidden_size", "d_model", "n_embd")
    layers = _number(text, "num_hidden_layers", "n_layer", "num_layers")
    vocab = _number(text, "vocab_size")
    if not (hidden and layers):
        return 0
    heads = _number(text, "num_attention_heads", "n_head", default=1)
    kv_heads = _number(text, "num_key_value_heads", default=heads)
    head_dim = _number(text, "head_dim", default=max(1, hidden // heads))
    attention = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2
    attention += (heads + 2 * kv_heads) * head_dim  # q/k/v biases (Qwen); a rounding error elsewhere
    dense_mlp = _mlp(hidden, _number(text, "intermediate_size", "ffn_dim", "n_inner", default=4 * hidden), text)
    experts = _number(text, "num_experts", "num_local_experts", "n_routed_experts")
    if experts:
        expert_size = _number(text, "moe_intermediate_size", default=_number(text, "intermediate_size"))
        shared = _number(text, "n_shared_experts", "num_shared_experts")
        mlp = experts * _mlp(hidden, expert_size, text) + hidden * experts
        mlp += shared * _mlp(hidden, expert_size, text)
    else:
        mlp = dense_mlp
    per_layer = attention + mlp + 2 * hidden
    embeddings = vocab * hidden * (1 if tied else 2)
    return layers * per_layer + embeddings + hidden


def _mlp(hidden: int, inner: int, config: Mapping[str, Any]) -> int:
    activation = str(config.get("hidden_act", config.get("activation_function", "silu"))).lower()
    matrices = 3 if activation in _GATED_ACTIVATIONS else 2
    return matrices * hidden * inner


def vision_parameters(vision: Mapping[str, Any]) -> int:
    """Parameters of a ViT-style vision tower (Qwen-VL, SigLIP, CLIP) described by `vision`."""
    hidden = _number(vision, "hidden_size", "embed_dim", "width")
    depth = _number(vision, "depth", "num_hidden_layers", "layers")
    if not (hidden and depth):
        return 0
    inner = _number(vision, "intermediate_size", default=4 * hidden)
    patch = _number(vision, "patch_size", default=14)
    channels = _number(vision, "in_channels", "num_channels", "in_chans", default=3)
    temporal = _number(vision, "temporal_patch_size", default=1)
    per_block = 4 * hidden * hidden + 4 * hidden + _mlp(hidden, inner, vision) + inner + hidden + 4 * hidden
    total = depth * per_block + channels * temporal * patch * patch * hidden + hidden
    positions = _number(vision, "num_position_embeddings")
    image = _number(vision, "image_size")
    if positions:
        total += positions * hidden
    elif image:
        total += (image // patch) ** 2 * hidden
    out = _number(vision, "out_hidden_size")
    if out:  # Qwen-VL merger: neighbouring patches merged, then projected to the language model
        merged = hidden * _number(vision, "spatial_merge_size", default=2) ** 2
        mergers = 1 + len(vision.get("deepstack_visual_indexes") or [])
        total += mergers * (merged * merged + merged * out + merged + out)
    if "siglip" in str(vision.get("model_type", "")) and vision.get("vision_use_head", True):
        # attention-pooling head: a probe, one attention, a norm and an MLP
        total += 4 * hidden * hidden + 4 * hidden + _mlp(hidden, inner, vision) + inner + 4 * hidden
    projection = _number(vision, "projection_dim")
    if projection:
        total += hidden * projection
    return total


def config_parameters(config: Mapping[str, Any]) -> int:
    """The parameters a model of this config.json has (0 when the config describes no known shape)."""
    text = config.get("text_config")
    text = text if isinstance(text, Mapping) else config
    tied = bool(text.get("tie_word_embeddings", config.get("tie_word_embeddings", False)))
    vision = config.get("vision_config")
    total = text_parameters(text, tied) if _number(text, "vocab_size") else 0
    if isinstance(vision, Mapping):
        total += vision_parameters(vision)
    elif not total:  # a vision tower on its own (SigLIP / CLIP vision configs)
        total = vision_parameters(config)
    return total
