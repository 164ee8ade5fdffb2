"""Command line of tpustrategy (``python -m tpustrategy`` or the ``tpustrategy`` console script).

  demo [--slice NAME]             the simulated slice, then a distributed computation on it
  slices                          every slice preset: chips, cores, hosts, mesh, HBM, ICI
  topology SLICE [--planes N]     the slice's topology picture (hosts, chips, cores, ICI links)

Bad arguments print one line of error and exit with status 2; a closed pipe (``... | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

_PROG = "tpustrategy"


class _Parser(argparse.ArgumentParser):
    """argparse, with errors on one line (the usage is one ``--help`` away)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _parser() -> _Parser:
    parser = _Parser(prog=_PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    demo = commands.add_parser(
        "demo",
        help="show the simulated slice and run a distributed computation on it",
        description="Shows the simulated slice, then runs TPUStrategy on it: a distributed dataset, a replica "
        "function with an all-reduce, strategy.reduce, and the HBM in use per core.",
    )
    demo.add_argument("--slice", default=None, help="slice preset, e.g. v4-32 (default: TPUSTRATEGY_SLICE or v3-8)")
    commands.add_parser(
        "slices",
        help="list the slice presets",
        description="Lists every slice preset: chips, TF devices (cores), TensorCores, hosts, the mesh "
        "[x, y, z, core], HBM per device and the ICI torus (links per chip, one-way bandwidth, wraparound).",
    )
    topology = commands.add_parser(
        "topology",
        help="draw a slice's topology",
        description="Draws the slice's topology: one grid per z-plane, chips with their host and the TPU "
        "ordinals of their cores, ICI links (host borders and wraparound marked) and HBM per core.",
    )
    topology.add_argument("slice", metavar="SLICE", help="slice preset, e.g. v3-8 or v4-128")
    topology.add_argument("--planes", type=int, default=4, help="z-planes to draw at most (default 4)")
    return parser


def _slice_preset(name: str) -> Any:
    """The preset named ``name``; ValueError with the preset list otherwise."""
    from tpustrategy import _core

    return _core.slice.find_slice_preset(name)


def _run(args: argparse.Namespace) -> None:
    from tpustrategy import demo as demo_module

    if args.command == "slices":
        demo_module.print_presets()
    elif args.command == "topology":
        if args.planes < 1:
            raise ValueError(f"--planes must be >= 1; got {args.planes}")
        demo_module.print_topology(_slice_preset(args.slice).name, args.planes)
    else:
        if args.slice is not None:
            _slice_preset(args.slice)
        demo_module.run_demo(args.slice)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status (0, or 2 for bad arguments)."""
    args = _parser().parse_args(argv)
    try:
        _run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``| head``): point stdout at /dev/null so the interpreter's final flush is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except ValueError as error:
        print(f"{_PROG}: error: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
