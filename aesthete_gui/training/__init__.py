"""Training: ranking-fidelity distillation of the fast student and the per-user taste adapter."""
