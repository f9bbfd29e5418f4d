"""The cloud reasoner's configuration: one dataclass, from a TOML file and CLI overrides.

Example ``cloud.toml``::

    host = "0.0.0.0"
    port = 50051
    backends = ["openai", "planner"]    # ordered fallback list
    tokens_file = "tokens.json"
    tls_cert = "server.pem"
    tls_key = "server.key"
    metrics_port = 9464
    rate_per_s = 5.0
    rate_burst = 10
    memory_url = "postgresql://edgeloop@127.0.0.1:5432/edgeloop"  # or memory_dir = "..."
    memory_cache_users = 1000           # user memories each replica keeps loaded
    memory_cache_mb = 256
    memory_idle_s = 600
    planner_split = "rules"             # or "model": a joint router's parse gives the clauses
    planner_router = "models/joint"     # the edge router the planner asks [default: shipped]
    mcp = ["search=uvx mcp-server-fetch"]  # MCP servers whose tools the cloud runs
    mcp_side_effects = false            # also offer their tools not marked read-only

    [openai]
    base_url = "http://127.0.0.1:8000/v1"
    model = "qwen2.5-7b-instruct"
    api_key_env = "OPENAI_API_KEY"      # or api_key = "..." (prefer the environment)
    timeout_s = 30
    tools = "auto"                      # native | text | auto (see docs/cloud.md)
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from edgeloop.limits import MAX_QUERY_CHARS
from edgeloop.transport.binding import check_port

KNOWN_BACKENDS = ("planner", "openai")
#: How the planner finds the requests of a compound query (docs/cloud.md).
PLANNER_SPLITS = ("rules", "model")
#: How the openai backend asks for tool calls: ``tools``/``tool_calls``, ReAct text, or
#: native until the server refuses it.
TOOL_MODES = ("native", "text", "auto")


@dataclass(frozen=True)
class OpenAIConfig:
    """An OpenAI-compatible chat-completions endpoint."""

    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = ""
    api_key: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 30.0
    max_retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 512
    tools: str = "auto"
    #: Seconds of the session's deadline a call leaves unused, for the fallback backend.
    deadline_margin_s: float = 2.0

    def __post_init__(self) -> None:
        if self.tools not in TOOL_MODES:
            raise ValueError(f"--openai-tools must be one of {', '.join(TOOL_MODES)}")
        if self.timeout_s <= 0 or self.max_retries < 0 or self.deadline_margin_s < 0:
            raise ValueError("openai timeout_s must be > 0, max_retries and margin >= 0")

    def resolved_api_key(self) -> str | None:
        """The API key: from the environment variable first, then the config file."""
        return os.environ.get(self.api_key_env) or self.api_key


@dataclass(frozen=True)
class CloudConfig:
    """Everything ``cloud-agent serve`` can be told; the defaults are zero-config localhost."""

    host: str = "127.0.0.1"
    port: int = 50051
    backends: tuple[str, ...] = ("planner",)
    openai: OpenAIConfig = field(default_factory=OpenAIConfig)
    tokens_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    metrics_port: int | None = None
    rate_per_s: float = 0.0
    rate_burst: int = 20
    max_query_chars: int = MAX_QUERY_CHARS
    max_steps: int = 24
    session_timeout_s: float = 120.0
    device_tool_timeout_s: float = 30.0
    memory_dir: str | None = None
    memory_url: str | None = None
    memory_cache_users: int = 1000
    memory_cache_mb: float = 256.0
    memory_idle_s: float = 600.0
    breaker_failures: int = 3
    breaker_reset_s: float = 30.0
    grace_s: float = 5.0
    #: Serve beyond loopback without tokens (and metrics beyond loopback): never by default.
    insecure: bool = False
    metrics_host: str = "127.0.0.1"
    #: Calls one peer address may hold at once; seconds a stream may keep the server
    #: waiting for its next message.
    max_calls_per_peer: int = 128
    stream_idle_s: float = 30.0
    #: Megabytes one Sync update may carry, and all Sync streams may hold together (an
    #: update is charged sync.budget.HOLD_FACTOR times its size: joined and decoded).
    sync_update_mb: float = 32.0
    sync_budget_mb: float = 512.0
    #: The planner's clauses: a joint router's parse (the default; a router with intents
    #: only falls back to the clause rules), or the clause rules alone (see docs/cloud.md
    #: for the figures); the router folder (None: the shipped one).
    planner_split: str = "model"
    planner_router: str | None = None
    #: MCP servers whose tools the cloud runs itself, ``"[NAME=]CMD ARGS"`` each (the mcp
    #: extra); their tools not marked read-only only with ``mcp_side_effects`` (the cloud
    #: has no person to approve them).
    mcp: tuple[str, ...] = ()
    mcp_side_effects: bool = False

    def __post_init__(self) -> None:
        if not all(isinstance(command, str) and command.strip() for command in self.mcp):
            raise ValueError('mcp must be a list of "[NAME=]CMD ARGS" strings')
        check_port(self.port)
        if self.metrics_port is not None:
            check_port(self.metrics_port, "metrics port")
        if self.planner_split not in PLANNER_SPLITS:
            raise ValueError(f"--planner-split must be one of {', '.join(PLANNER_SPLITS)}")
        unknown = [name for name in self.backends if name not in KNOWN_BACKENDS]
        if unknown or not self.backends:
            raise ValueError(
                f"unknown backend(s) {unknown or '(none given)'}; choose from {KNOWN_BACKENDS}"
            )
        if "openai" in self.backends and not self.openai.model:
            raise ValueError("the openai backend needs a model name (--openai-model)")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate and a key")
        if self.memory_url and self.memory_dir:
            raise ValueError("give --memory-url or --memory-dir, not both")
        if self.memory_url and not self.memory_url.startswith(("postgresql://", "postgres://")):
            raise ValueError("--memory-url must be a postgresql:// URL")
        if self.memory_cache_users < 1 or self.memory_cache_mb <= 0 or self.memory_idle_s <= 0:
            raise ValueError("the memory cache budget must be positive")
        if self.stream_idle_s <= 0 or self.sync_update_mb <= 0 or self.sync_budget_mb <= 0:
            raise ValueError("stream_idle_s, sync_update_mb and sync_budget_mb must be positive")
        if self.sync_update_mb > self.sync_budget_mb:
            raise ValueError("sync_update_mb must not exceed sync_budget_mb")

    @classmethod
    def load(cls, path: str | Path | None = None, **overrides: Any) -> CloudConfig:
        """Read a TOML file (optional), then apply overrides whose value is not None."""
        data: dict[str, Any] = {}
        if path is not None:
            try:
                data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ValueError(f"cannot read config file {path}: {exc}") from exc
        openai_data = dict(data.pop("openai", {}) or {})
        for key in [k for k in overrides if k.startswith("openai_")]:
            value = overrides.pop(key)
            if value is not None:
                openai_data[key.removeprefix("openai_")] = value
        data.update({k: v for k, v in overrides.items() if v is not None})
        _check_keys(data, cls, "config keys")
        _check_keys(openai_data, OpenAIConfig, "[openai] config keys")
        if "backends" in data:
            backends = data["backends"]
            if isinstance(backends, str):
                backends = [b.strip() for b in backends.split(",") if b.strip()]
            data["backends"] = tuple(backends)
        if isinstance(data.get("mcp"), (list, str)):
            data["mcp"] = (data["mcp"],) if isinstance(data["mcp"], str) else tuple(data["mcp"])
        return cls(openai=OpenAIConfig(**openai_data), **data)

    def with_port(self, port: int) -> CloudConfig:
        """A copy bound to another port."""
        return replace(self, port=port)


def _check_keys(data: dict[str, Any], kind: type[Any], what: str) -> None:
    """ValueError naming the keys of ``data`` that are no field of the dataclass ``kind``."""
    unknown = sorted(set(data) - {f.name for f in fields(kind)})
    if unknown:
        raise ValueError(f"unknown {what}: {', '.join(unknown)}")
