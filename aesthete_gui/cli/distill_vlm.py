"""`aesthete distill-vlm`: train a VLM student with GRPO (LoRA) on the pseudo-scores, in this process (GPU recipe)."""

from __future__ import annotations

import argparse
import json

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile


def _distill_vlm(args: argparse.Namespace) -> int:
    from aesthete_gui.training.grpo_recipe import config_from_args, train_vlm_student

    with open_cli_profile(args) as profile:  # a mistyped --profile is said, not made
        profile_path = profile.path
    try:
        config = config_from_args(args)
        summary = train_vlm_student(profile_path, args.model, args.output, config)
    except ImportError as error:
        raise UserError(f"the VLM recipe needs trl, peft and accelerate: pip install 'aesthete-gui[rl]' ({error})") from error
    except ValueError as error:
        raise UserError(str(error)) from error
    print(json.dumps(summary, indent=2))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `distill-vlm` command."""
    from aesthete_gui.training.grpo_recipe import add_arguments

    v = subparsers.add_parser("distill-vlm", help="GPU recipe: train a VLM student with GRPO on the pseudo-scores (LoRA)")
    add_arguments(v)
    v.set_defaults(func=_distill_vlm)
