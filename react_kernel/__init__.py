"""The ReAct kernel shared by the edge and the cloud: transport-free, every step a ReactStep.

Example:
    >>> from react_kernel import AgentLoop, ScriptedReasoner, ToolRegistry, ToolSpec
    >>> tools = ToolRegistry([ToolSpec(
    ...     name="calculator", description="Arithmetic.",
    ...     input_schema={"type": "object", "properties": {"expression": {"type": "string"}},
    ...                   "required": ["expression"]},
    ...     func=lambda args: {"value": 4})])
    >>> loop = AgentLoop(ScriptedReasoner(["Action: calculator\\nAction Input: 2+2",
    ...                                    "Final Answer: 4"]), tools)
    >>> [s.content for s in loop.start("2+2?").run()][-1]
    '4'
"""

from react_kernel.approval import ApprovalDecision, ApprovalPolicy, default_approval_policy
from react_kernel.breaker import BreakerState, CircuitBreaker
from react_kernel.errors import (
    CircuitOpenError,
    IllegalTransitionError,
    KernelError,
    ResumeError,
    SessionError,
    ToolError,
    ToolRegistryError,
    TransientToolError,
    UnknownActError,
)
from react_kernel.executor import RetryPolicy, ToolExecutor, ToolOutcome, canonical_json
from react_kernel.guards import GuardConfig, best_effort_answer, jaccard
from react_kernel.idempotency import (
    IdempotencyStore,
    InMemoryIdempotencyStore,
    InMemorySessionStore,
    SessionStore,
)
from react_kernel.loop import AgentLoop
from react_kernel.parser import ParseResult, parse_model_output
from react_kernel.reasoner import CancelToken, Reasoner, ReasoningContext, ScriptedReasoner
from react_kernel.receipts import build_receipt, make_receipt, verify_receipt
from react_kernel.safety import (
    SafetyConfig,
    redact_pii,
    redact_step,
    redact_struct,
    sandbox_arguments,
    screen_injection,
)
from react_kernel.session import Session
from react_kernel.state import State, Transition
from react_kernel.steps import from_struct, new_act_id, step_from_json, step_to_json, to_struct
from react_kernel.tools import ToolRegistry, ToolSpec

__all__ = [
    "AgentLoop",
    "ApprovalDecision",
    "ApprovalPolicy",
    "BreakerState",
    "CancelToken",
    "CircuitBreaker",
    "CircuitOpenError",
    "GuardConfig",
    "IdempotencyStore",
    "IllegalTransitionError",
    "InMemoryIdempotencyStore",
    "InMemorySessionStore",
    "KernelError",
    "ParseResult",
    "Reasoner",
    "ReasoningContext",
    "ResumeError",
    "RetryPolicy",
    "SafetyConfig",
    "ScriptedReasoner",
    "Session",
    "SessionError",
    "SessionStore",
    "State",
    "ToolError",
    "ToolExecutor",
    "ToolOutcome",
    "ToolRegistry",
    "ToolRegistryError",
    "ToolSpec",
    "TransientToolError",
    "Transition",
    "UnknownActError",
    "best_effort_answer",
    "build_receipt",
    "canonical_json",
    "default_approval_policy",
    "from_struct",
    "jaccard",
    "make_receipt",
    "new_act_id",
    "parse_model_output",
    "redact_pii",
    "redact_step",
    "redact_struct",
    "sandbox_arguments",
    "screen_injection",
    "step_from_json",
    "step_to_json",
    "to_struct",
    "verify_receipt",
]
