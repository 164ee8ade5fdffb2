"""The ``checkpoint`` state file of a checkpoint directory (a CheckpointState proto in text format, as TF
writes it) and ``tf.train.latest_checkpoint`` / ``get_checkpoint_state``::

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1795390336.25
    all_model_checkpoint_timestamps: 1795390337.5
    last_preserved_timestamp: 1795390330.0

Paths inside the directory are written relative to it (CheckpointManager's ``save_relative_paths``);
readers make them absolute again. The file is replaced crash-safely (temporary file, fsync, rename).
"""

from __future__ import annotations

import codecs
import dataclasses
import logging
import os
import re
from collections.abc import Callable

from tpustrategy import _core

_logger = logging.getLogger("tpustrategy")
_LINE = re.compile(r'^\s*(\w+)\s*:\s*(.*?)\s*$')


@dataclasses.dataclass
class CheckpointState:
    model_checkpoint_path: str = ""
    all_model_checkpoint_paths: list[str] = dataclasses.field(default_factory=list)
    all_model_checkpoint_timestamps: list[float] = dataclasses.field(default_factory=list)
    last_preserved_timestamp: float = 0.0


def _quote(text: str) -> str:
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'").replace("\n", "\\n")
               .replace("\r", "\\r").replace("\t", "\\t"))
    return f'"{escaped}"'


def _unquote(text: str) -> str:
    if len(text) < 2 or text[0] not in "\"'" or text[-1] != text[0]:
        raise ValueError(f"expected a quoted string, got {text!r}")
    return codecs.escape_decode(text[1:-1].encode())[0].decode("utf-8")


def _timestamp(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def format_state(state: CheckpointState) -> str:
    lines = [f"model_checkpoint_path: {_quote(state.model_checkpoint_path)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in state.all_model_checkpoint_paths]
    lines += [f"all_model_checkpoint_timestamps: {_timestamp(t)}" for t in state.all_model_checkpoint_timestamps]
    if state.last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {_timestamp(state.last_preserved_timestamp)}")
    return "\n".join(lines) + "\n"


def parse_state(text: str) -> CheckpointState:
    """Raises ValueError on a line that is not a known field."""
    state = CheckpointState()
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            raise ValueError(f"cannot parse {line!r}")
        name, value = match.groups()
        if name == "model_checkpoint_path":
            state.model_checkpoint_path = _unquote(value)
        elif name == "all_model_checkpoint_paths":
            state.all_model_checkpoint_paths.append(_unquote(value))
        elif name == "all_model_checkpoint_timestamps":
            state.all_model_checkpoint_timestamps.append(float(value))
        elif name == "last_preserved_timestamp":
            state.last_preserved_timestamp = float(value)
        else:
            raise ValueError(f"unknown field {name!r}")
    return state


def _state_path(checkpoint_dir: str | os.PathLike[str], latest_filename: str | None) -> str:
    return os.path.join(os.fspath(checkpoint_dir), latest_filename or "checkpoint")


def get_checkpoint_state(checkpoint_dir: str | os.PathLike[str], latest_filename: str | None = None,
                         ) -> CheckpointState | None:
    """The CheckpointState of `checkpoint_dir` with absolute paths, or None when there is no readable state file."""
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, encoding="utf-8") as f:
            state = parse_state(f.read())
    except FileNotFoundError:
        return None
    except (OSError, ValueError, UnicodeDecodeError) as e:
        _logger.warning("%s: %s", type(e).__name__, e)
        _logger.warning("%s: Checkpoint ignored", path)
        return None
    if not state.model_checkpoint_path:
        _logger.warning("%s: Checkpoint ignored (no model_checkpoint_path)", path)
        return None
    base = os.fspath(checkpoint_dir)
    absolute: Callable[[str], str] = lambda p: p if os.path.isabs(p) else os.path.join(base, p)  # noqa: E731
    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def checkpoint_exists(prefix: str) -> bool:
    return os.path.isfile(prefix + ".index")


def latest_checkpoint(checkpoint_dir: str | os.PathLike[str], latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint of `checkpoint_dir` (from its state file), or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None:
        return None
    if checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    _logger.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def write_state(checkpoint_dir: str | os.PathLike[str], state: CheckpointState, save_relative_paths: bool = True,
                latest_filename: str | None = None) -> None:
    """Replaces the state file crash-safely; paths inside `checkpoint_dir` become relative when asked."""
    base = os.path.abspath(os.fspath(checkpoint_dir))

    def relative(p: str) -> str:
        if save_relative_paths and os.path.isabs(p) and os.path.dirname(os.path.abspath(p)) == base:
            return os.path.basename(p)
        if save_relative_paths and not os.path.isabs(p) and os.path.dirname(os.path.abspath(p)) == base:
            return os.path.basename(p)
        return p

    written = CheckpointState(relative(state.model_checkpoint_path),
                              [relative(p) for p in state.all_model_checkpoint_paths],
                              list(state.all_model_checkpoint_timestamps), state.last_preserved_timestamp)
    _core.checkpoint.write_file_atomically(_state_path(checkpoint_dir, latest_filename),
                                           format_state(written).encode("utf-8"))
