"""What `edge-agent ask` prints and how it exits, in one place for its two paths.

The full command (``edge_agent.cli.ask``) and the quick path through a running runtime
(``edge_agent.quick_ask``, which loads neither typer nor grpc nor protobuf) must print
the same lines and exit with the same codes; both take them from here. Stdlib only.
"""

from __future__ import annotations

#: Exit code of `ask` when the query was kept pending (the cloud was unreachable or busy):
#: EX_TEMPFAIL, "try again later" (`edge-agent pending --cloud` resolves it).
EXIT_PENDING = 75
#: Exit code of `ask` when the device asked a question back (a required argument is
#: missing): the question is printed, and `ask --session ID "ANSWER"` answers it.
EXIT_ASKED = 3

#: The step kinds (``react_kernel.steps.STEP_KINDS``) whose text is the answer a plain
#: ask prints: the answer, an error, a question asked back.
ANSWER_KINDS = frozenset({"answer", "error", "question"})


def shown(kind: str, content: str, verbose: bool, interactive: bool) -> str | None:
    """What the terminal prints for a step of ``kind`` (None: nothing): the answer (every
    step, as ``kind: content``, with ``--verbose``). An approval request that the person
    is asked about is not printed too: the prompt shows it, once.

    >>> shown("answer", "12", False, True), shown("thought", "x", False, True)
    ('12', None)
    >>> shown("thought", "x", True, True), shown("approval", "ok?", True, True)
    ('thought: x', None)
    """
    if kind == "approval" and interactive:
        return None
    if verbose:
        return f"{kind}: {content}"
    return content if kind in ANSWER_KINDS else None


def answer_hint(session_id: str) -> str:
    """The stderr line after a question asked back: how to answer it."""
    return f'(answer: edge-agent ask --session {session_id} "...")'
