"""The device's config file: ``edge.toml`` beside its memory, for what must not sync.

Settings that every replica shares (home city, units, …) are facts in memory and sync
(``edge-agent config set``). What this device runs is not: a synced setting that starts
programs would let any replica of the memory run them here. So the MCP servers a device
starts with every command live in a plain file beside its memory database (by default
``~/.edgeloop/edge.toml``, or beside ``--memory PATH``)::

    # MCP servers whose tools this device offers, as for --mcp (before any --mcp)
    mcp = [
        "garden=python /opt/garden/server.py",
        "files=npx -y @modelcontextprotocol/server-filesystem /home/me/notes",
    ]

A missing file is an empty one; an unreadable one, or an unknown key, is a one-line error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from understanding.errors import SettingsError

__all__ = ["CONFIG_FILE", "ConfigFile", "load_config_file"]

CONFIG_FILE = "edge.toml"


@dataclass(frozen=True)
class ConfigFile:
    """What edge.toml says (empty when there is none)."""

    mcp: tuple[str, ...] = ()


def load_config_file(folder: Path) -> ConfigFile:
    """``folder/edge.toml``, or the empty config when there is none.

    Raises:
        SettingsError: the file cannot be read or parsed, has an unknown key, or its
            ``mcp`` is not a list of strings.
    """
    path = folder / CONFIG_FILE
    if not path.is_file():
        return ConfigFile()
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None
    unknown = sorted(set(data) - {"mcp"})
    if unknown:
        raise SettingsError(f"{path}: unknown keys {', '.join(unknown)} (known: mcp)")
    mcp = data.get("mcp", [])
    if not isinstance(mcp, list) or not all(isinstance(item, str) for item in mcp):
        raise SettingsError(f'{path}: mcp must be a list of "[NAME=]CMD ARGS" strings')
    return ConfigFile(mcp=tuple(mcp))
