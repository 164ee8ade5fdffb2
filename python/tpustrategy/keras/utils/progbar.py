"""``keras.utils.Progbar``: Keras 3's progress line.

verbose=1: ``<step>/<target> <bar of 20 ━> <eta or elapsed> <time per step> - name: value …``, redrawn in
place (``\\r``) when the output is a terminal or a Jupyter kernel, else one line per update; values of
names not in ``stateful_metrics`` are averaged over steps. verbose=2: one line at the end:
``<step>/<target> - <elapsed>s - <time per step> - name: value …``.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable
from typing import Any


def _format_time(seconds: float, unit: str) -> str:
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit}"
    return f" {seconds * 1e6:.0f}us/{unit}"


def _format_value(value: float) -> str:
    return f" {value:.4f}" if abs(value) > 1e-3 else f" {value:.4e}"


class Progbar:
    """A text progress bar on stdout in Keras 3's format (what ``fit``'s verbose output prints).

    Args:
        target: The total number of steps, or None when unknown (the bar then shows ``<step>/Unknown``).
        width: The bar's width in characters.
        verbose: 1 for a bar redrawn in place (one line per update when stdout is not a terminal, Jupyter or
            POSIX), 2 for a single line when the target is reached, 0 for nothing.
        interval: Minimum seconds between redraws with verbose=1 (the final update always draws).
        stateful_metrics: Names whose values are shown as given rather than averaged over steps.
        unit_name: The unit in the time-per-step field ("step").
    """

    def __init__(self, target: int | None, width: int = 20, verbose: int = 1, interval: float = 0.05,
                 stateful_metrics: Iterable[str] | None = None, unit_name: str = "step") -> None:
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        # As Keras 3: redraw in place on terminals, in Jupyter, and on any POSIX system (its test is that broad).
        self._dynamic = (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or "ipykernel" in sys.modules \
            or os.name == "posix"
        self._values: dict[str, list[Any]] = {}  # name -> [weighted total, count] ([value, 1] if stateful)
        self._order: list[str] = []
        self._seen = 0
        self._start = time.time()
        self._last_update = 0.0
        self._first_step_time: float | None = None
        self._prev_width = 0

    def _step_time(self, current: int, now: float) -> float:
        if not current:
            return 0.0
        if self._first_step_time is None:
            self._first_step_time = now - self._start
            return self._first_step_time / current
        if current > 1 and self.target is not None and current > 1:
            return (now - self._start - self._first_step_time) / max(1, current - 1) if current > 1 else 0.0
        return (now - self._start) / current

    def update(self, current: int, values: list[tuple[str, Any]] | None = None, finalize: bool | None = None) -> None:
        """Moves the bar to step `current` and records metric values.

        Args:
            current: The index of the current step (steps done so far).
            values: ``(name, value)`` pairs; a value of a name not in ``stateful_metrics`` is averaged over steps,
                weighted by the steps since the previous update.
            finalize: Whether this is the last update (values are then shown as given and the line ends); None
                means ``current >= target``.
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            if name not in self._order:
                self._order.append(name)
            value = float(value)
            if name in self.stateful_metrics or finalize:
                self._values[name] = [value, 1]
            else:
                weight = max(current - self._seen, 1)
                total, count = self._values.get(name, [0.0, 0])
                self._values[name] = [total + value * weight, count + weight]
        self._seen = current
        now = time.time()
        per_step = self._step_time(current, now)
        info = ""
        for name in self._order:
            total, count = self._values[name]
            info += f" - {name}:{_format_value(total / max(1, count))}"
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            if self.target:
                digits = int(math.log10(self.target)) + 1
                count = f"{current:{digits}d}/{self.target}"
                done = int(self.width * current / self.target)
                bar = f"\x1b[1m{count}\x1b[0m "
                visible = len(count) + 1
                if done > 0:
                    bar += f"\x1b[32m{'━' * done}\x1b[0m"
                bar += f"\x1b[37m{'━' * (self.width - done)}\x1b[0m"
                visible += self.width
            else:
                bar = f"{current:7d}/Unknown"
                visible = len(bar)
            if self.target and not finalize:
                eta = per_step * (self.target - current)
                eta_text = (f"{eta // 3600:.0f}:{(eta % 3600) // 60:02.0f}:{eta % 60:02.0f}" if eta > 3600 else
                            f"{eta // 60:.0f}:{eta % 60:02.0f}" if eta > 60 else f"{eta:.0f}s")
            else:
                eta_text = f"{now - self._start:.0f}s"
            timing = f" \x1b[1m{eta_text}\x1b[0m" + _format_time(per_step, self.unit_name)
            width = visible + 1 + len(eta_text) + len(_format_time(per_step, self.unit_name)) + len(info)
            message = ("\b" * self._prev_width + "\r") if self._dynamic else "\n"
            message += bar + timing + info
            if self._prev_width > width:
                message += " " * (self._prev_width - width)
            if finalize:
                message += "\n"
            sys.stdout.write(message)
            sys.stdout.flush()
            self._prev_width = width
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            sys.stdout.write(f"{current:{digits}d}/{self.target} - {now - self._start:.0f}s -"
                             f"{_format_time(per_step, self.unit_name)}{info}\n")
            sys.stdout.flush()
        self._last_update = now

    def add(self, n: int, values: list[tuple[str, Any]] | None = None) -> None:
        """Advances the bar by `n` steps (``update(current + n, values)``)."""
        self.update(self._seen + n, values)
