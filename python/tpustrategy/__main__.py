"""Command line: ``python -m tpustrategy demo [--slice NAME]`` and ``python -m tpustrategy slices``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tpustrategy", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="show the simulated slice and run a distributed computation on it")
    demo.add_argument("--slice", default=None, help="slice preset, e.g. v4-32 (default: TPUSTRATEGY_SLICE or v3-8)")
    commands.add_parser("slices", help="list the slice presets")
    args = parser.parse_args(argv)

    from tpustrategy import demo as demo_module

    if args.command == "slices":
        demo_module.print_presets()
    else:
        demo_module.run_demo(args.slice)
    return 0


if __name__ == "__main__":
    sys.exit(main())
