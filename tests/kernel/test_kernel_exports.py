"""The public API: exactly the intended names, all importable; no grpc in the kernel."""

from __future__ import annotations

import subprocess
import sys

import react_kernel

EXPECTED = {
    # contract names (docs/interfaces.md)
    "AgentLoop",
    "CircuitBreaker",
    "GuardConfig",
    "IdempotencyStore",
    "InMemoryIdempotencyStore",
    "ParseResult",
    "Reasoner",
    "ReasoningContext",
    "ScriptedReasoner",
    "Session",
    "SessionStore",
    "ToolRegistry",
    "ToolSpec",
    "TransientToolError",
    "from_struct",
    "make_receipt",
    "new_act_id",
    "parse_model_output",
    "redact_pii",
    "redact_struct",
    "screen_injection",
    "step_to_json",
    "to_struct",
    "verify_receipt",
    # the rest of the public surface
    "ApprovalDecision",
    "ApprovalPolicy",
    "BreakerState",
    "CancelToken",
    "CircuitOpenError",
    "IllegalTransitionError",
    "InMemorySessionStore",
    "KernelError",
    "ResumeError",
    "RetryPolicy",
    "SafetyConfig",
    "SessionError",
    "State",
    "ToolError",
    "ToolExecutor",
    "ToolOutcome",
    "ToolRegistryError",
    "Transition",
    "UnknownActError",
    "best_effort_answer",
    "build_receipt",
    "canonical_json",
    "default_approval_policy",
    "jaccard",
    "redact_step",
    "sandbox_arguments",
    "step_from_json",
}


def test_exports_are_exactly_the_intended_names() -> None:
    assert set(react_kernel.__all__) == EXPECTED
    assert len(react_kernel.__all__) == len(EXPECTED)
    for name in react_kernel.__all__:
        assert getattr(react_kernel, name) is not None


def test_kernel_never_imports_grpc() -> None:
    code = "import sys, react_kernel; print('grpc' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_error_tree() -> None:
    assert issubclass(react_kernel.TransientToolError, react_kernel.ToolError)
    for name in ("IllegalTransitionError", "SessionError", "ResumeError", "CircuitOpenError"):
        assert issubclass(getattr(react_kernel, name), react_kernel.KernelError)
    assert issubclass(react_kernel.UnknownActError, react_kernel.SessionError)
