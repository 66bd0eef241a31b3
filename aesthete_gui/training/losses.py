"""Differentiable ranking-fidelity loss (docs/method.md §6): 1 − the confidence-weighted fidelity reward.

Same formula as `reward.ranking_fidelity_reward`, written with torch operations so a head can be
trained on the pseudo-scores' order rather than on their noisy point values. torch is imported
inside the function (the module itself loads without it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aesthete_gui.training.reward import DEFAULT_SIGMA, DEFAULT_TAU_W, EPSILON

if TYPE_CHECKING:
    import torch

_SQRT_FLOOR = 1e-8  # keeps sqrt differentiable where a probability reaches exactly 0 or 1


def ranking_fidelity_loss(
    predicted: torch.Tensor,
    pseudo: torch.Tensor,
    sigma: float | torch.Tensor = DEFAULT_SIGMA,
    tau_w: float = DEFAULT_TAU_W,
) -> torch.Tensor:
    """Mean over dimensions of 1 − Σ w·F / Σ w for a batch (n, D) of predictions vs pseudo-scores.

    `sigma` is a scalar or an (n, D) tensor of per-image spreads. Dimensions whose pairs carry no
    weight are left out; when none has weight the loss is a zero that keeps the graph.
    """
    import torch

    if predicted.shape != pseudo.shape or predicted.dim() != 2:
        raise ValueError(f"expected two (n, D) tensors; got {tuple(predicted.shape)} and {tuple(pseudo.shape)}")
    if tau_w <= 0:
        raise ValueError("tau_w must be positive")
    pseudo = pseudo.to(predicted.dtype).detach()
    spread = torch.as_tensor(sigma, dtype=predicted.dtype, device=predicted.device).expand_as(predicted)
    n = predicted.shape[0]
    off_diagonal = 1.0 - torch.eye(n, dtype=predicted.dtype, device=predicted.device)

    delta = predicted[:, None, :] - predicted[None, :, :]  # (n, n, D)
    scale = torch.sqrt(spread[:, None, :] ** 2 + spread[None, :, :] ** 2 + EPSILON)
    p_pred = torch.special.ndtr(delta / scale)
    gap = pseudo[:, None, :] - pseudo[None, :, :]
    p_gt = torch.where(gap > 0, 1.0, torch.where(gap < 0, 0.0, 0.5)).to(predicted.dtype)
    weight = torch.clamp(gap.abs() / tau_w, max=1.0) * off_diagonal[:, :, None]
    fid = torch.sqrt(p_pred * p_gt + _SQRT_FLOOR) + torch.sqrt((1 - p_pred) * (1 - p_gt) + _SQRT_FLOOR)
    totals = weight.sum(dim=(0, 1))
    usable = totals > 0
    if not bool(usable.any()):
        return predicted.sum() * 0.0
    per_dimension = (weight * fid).sum(dim=(0, 1))[usable] / totals[usable]
    return 1.0 - per_dimension.mean()
