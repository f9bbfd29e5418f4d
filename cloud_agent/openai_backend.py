"""The openai backend: any OpenAI-compatible chat-completions endpoint as a Reasoner.

vLLM, Ollama, llama.cpp's server and hosted APIs all speak ``POST {base}/chat/completions``.
Two ways to ask for a tool call, chosen by ``OpenAIConfig.tools``:

- ``native``: the tools go out as ``tools`` (their JSON Schemas) and the model answers with
  ``message.tool_calls`` (``arguments`` a JSON string, or an object as Ollama sends it;
  several calls in one reply). Each call becomes its own ACTION with its own act id; the
  observations go back as ``role: "tool"`` messages with the matching ``tool_call_id``.
- ``text``: the ReAct text protocol (Thought / Action / Action Input / Final Answer) in the
  system prompt, the reply read by the kernel's tolerant parser (text, fenced JSON...).
- ``auto`` (the default): native, and once the server says it cannot (an HTTP 4xx, or an
  error naming tools), text for the rest of this backend's life.

Either way the transcript always alternates user and assistant turns (chat templates such
as Mistral's and Gemma's refuse two in a row), so a Thought and its Action are one
assistant message.

Every call is bounded by what is left of the session's deadline (less a margin kept for
the fallback backend), aborted when the session is canceled, and retried on transport
errors, timeouts, HTTP 429 and 5xx only while the budget lasts, honouring ``Retry-After``.
A failure, or an empty or unusable reply, raises :class:`BackendRequestError`, which the
fallback list counts against this backend's breaker so the next backend serves the step.

The HTTP client is ``httpx.AsyncClient`` on one event loop of the backend's own; the
kernel's step (synchronous) waits for it and cancels it when the session is canceled.

Example:
    >>> backend = OpenAIReasoner(OpenAIConfig(base_url="http://127.0.0.1:8000/v1",
    ...                                       model="qwen2.5"))     # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import json
import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import httpx

from cloud_agent.config import OpenAIConfig
from cloud_agent.errors import (
    BackendRequestError,
    BudgetExhaustedError,
    RetryAfterPendingError,
)
from edgeloop.transport.loop import EventLoopThread
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ReasoningContext, parse_model_output
from react_kernel.steps import from_struct

log = logging.getLogger(__name__)

TEXT_PROMPT = """You are the cloud reasoner of a home assistant. Solve the user's query \
step by step with the tools below, one tool call per reply, in exactly this format:

Thought: what you will do next and why
Action: <tool name>
Action Input: <JSON object of the tool's arguments>

When you have the answer (or no tool can help), reply:

Thought: why you are done
Final Answer: <the answer for the user>

Never invent tool results: wait for the Observation. Tools:
{tools}"""

NATIVE_PROMPT = """You are the cloud reasoner of a home assistant. Solve the user's query \
with the tools you are given: call them (several at once when they do not depend on each \
other), read their results, and when you have the answer (or no tool can help) reply with \
the answer for the user in plain text. Never invent tool results."""

#: Metadata of the THOUGHT that opens a native reply: the reply's content and its calls.
CALLS_KEY = "openai_tool_calls"
#: Metadata of each ACTION (or ERROR) made from a native call: the call's id.
CALL_ID_KEY = "tool_call_id"
#: The ``tool`` message of a call that never ran (another backend served the step).
NOT_RUN = "error: not run: another backend served this step"
#: HTTP statuses that, on a request with ``tools``, mean "this server cannot do tools".
_NO_TOOLS_STATUS = frozenset({400, 404, 422, 501})


class BackendCanceledError(BackendRequestError):
    """The session was canceled while the call was in flight."""

    counts_against_backend = False


class OpenAIReasoner:
    """A Reasoner backed by an OpenAI-compatible chat-completions endpoint."""

    name = "openai"
    blocking = True  # the kernel's step waits for the HTTP call: run it on a worker thread

    def __init__(
        self, config: OpenAIConfig, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.config = config
        headers = {"Content-Type": "application/json"}
        key = config.resolved_api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._loop = EventLoopThread()
        self._client = httpx.AsyncClient(
            base_url=config.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(config.timeout_s),
            transport=transport,
        )
        #: Whether requests carry ``tools`` (auto: until the server refuses them).
        self.native = config.tools != "text"
        #: ``time.monotonic()`` instant before which the server asked not to be called.
        self.not_before = 0.0

    def close(self) -> None:
        """Close the HTTP client and the backend's event loop."""
        try:
            self._loop.run(self._client.aclose(), timeout=5)
        finally:
            self._loop.close()

    # -- the Reasoner interface ----------------------------------------------------------

    def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """The next steps: a call still queued from the last reply, or the endpoint's."""
        queued = self._queued_call(ctx)
        if queued is not None:
            return [queued]
        if ctx.cancel.canceled:
            raise BackendCanceledError("the session was canceled")
        future = self._loop.submit(self._ask(ctx))
        remove = ctx.cancel.add_callback(future.cancel)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise BackendCanceledError("the session was canceled during the call") from None
        finally:
            remove()

    # -- the request ---------------------------------------------------------------------

    def request_body(self, ctx: ReasoningContext, *, native: bool) -> dict[str, Any]:
        """The chat-completions request for the context, in native or text mode."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": self.messages(ctx, native=native),
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }
        if native:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": schema["name"],
                        "description": schema["description"],
                        "parameters": schema["input_schema"],
                    },
                }
                for schema in ctx.tools.schemas()
            ]
            body["tool_choice"] = "auto"
        else:
            body["stop"] = ["\nObservation:"]
        return body

    def messages(
        self, ctx: ReasoningContext, *, native: bool | None = None
    ) -> list[dict[str, Any]]:
        """System prompt, query and this turn's transcript, roles always alternating."""
        native = self.native if native is None else native
        if native:
            system = NATIVE_PROMPT
        else:
            tools = "\n".join(json.dumps(schema) for schema in ctx.tools.schemas())
            system = TEXT_PROMPT.format(tools=tools)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": ctx.query},
        ]
        turn = [step for step in ctx.history if step.turn_id == ctx.turn_id]
        messages += _native_transcript(turn) if native else _text_transcript(turn)
        return _alternate(messages)

    def _budget_s(self, ctx: ReasoningContext) -> float:
        """Seconds this call may take: the timeout, within the session's deadline less the
        margin kept for the fallback; raises BudgetExhaustedError when nothing is left."""
        remaining = ctx.remaining_s()
        if remaining is None:
            return self.config.timeout_s
        budget = min(self.config.timeout_s, remaining - self.config.deadline_margin_s)
        if budget <= 0.05:
            raise BudgetExhaustedError(
                f"no time left in the session's deadline ({max(remaining, 0):.1f} s left, "
                f"{self.config.deadline_margin_s:g} s kept for the fallback)"
            )
        return budget

    async def _ask(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """One reasoning step: request (with retries within the budget), then the reply."""
        where = self.config.base_url
        attempt = 0
        while True:
            hold = self.not_before - time.monotonic()
            if hold > 0:  # a Retry-After from an earlier call still holds
                left = ctx.remaining_s()
                if left is not None and hold >= left - self.config.deadline_margin_s:
                    raise RetryAfterPendingError(
                        f"{where}: rate limited for {hold:.1f} s more (Retry-After), past the "
                        f"session's {max(left, 0):.1f} s left"
                    )
                await asyncio.sleep(hold)
            native = self.native
            budget = self._budget_s(ctx)
            body = self.request_body(ctx, native=native)
            started = time.monotonic()
            response: httpx.Response | None = None  # none: no reply (timeout, no connection)
            try:
                async with asyncio.timeout(budget):
                    response = await self._client.post("chat/completions", json=body)
                problem, wait = _problem(response)
            except TimeoutError:
                problem, wait = f"no reply within {budget:.1f} s", None
                if budget < self.config.timeout_s:  # the session's deadline, not the timeout
                    raise BackendRequestError(f"{where}: {problem}, the session's budget") from None
            except httpx.HTTPError as exc:
                problem, wait = f"{type(exc).__name__}: {exc}", None
            if problem is None and response is not None:
                return self._steps(ctx, response, native=native)
            status = response.status_code if response is not None else 0
            if (
                response is not None
                and native
                and self.config.tools == "auto"
                and _refuses_tools(response, status)
            ):
                log.warning("%s refused tools (%s): using the ReAct text protocol", where, problem)
                self.native = False
                continue
            if status and status != 429 and status < 500:
                raise BackendRequestError(f"{where}: {problem}")
            attempt += 1
            if attempt > self.config.max_retries:
                raise BackendRequestError(f"{where}: {problem} (after {attempt} attempts)")
            if wait is not None:
                self.not_before = max(self.not_before, time.monotonic() + wait)
            pause = wait if wait is not None else min(2.0, 0.2 * 2 ** (attempt - 1))
            left = ctx.remaining_s()
            if left is not None and pause >= left - self.config.deadline_margin_s:
                told = "Retry-After " if wait is not None else "a back-off of "
                raise BackendRequestError(
                    f"{where}: {problem}; {told}{pause:g} s does not fit in the session's "
                    f"{max(left, 0):.1f} s left"
                )
            log.info(
                "%s: %s; retrying in %.2f s (%.2f s spent)",
                where,
                problem,
                pause,
                time.monotonic() - started,
            )
            await asyncio.sleep(pause)

    # -- the reply -----------------------------------------------------------------------

    def _steps(
        self, ctx: ReasoningContext, response: httpx.Response, *, native: bool
    ) -> list[pb.ReactStep]:
        try:
            data = response.json()
            message = data["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError("message is not an object")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendRequestError(
                f"{self.config.base_url}: unusable reply (no choices[0].message): {exc}"
            ) from None
        content = _content_text(message.get("content"))
        calls = _tool_calls(message)
        if calls:
            steps = self._open_call_group(ctx, content, calls)
        else:
            if not content.strip():
                raise BackendRequestError(
                    f"{self.config.base_url}: the reply was empty (no content, no tool_calls)"
                )
            steps = parse_model_output(content, ctx.tools).steps
            if steps[-1].metadata.get("parse_error") == "empty":  # e.g. only a <think> block
                raise BackendRequestError(f"{self.config.base_url}: the reply had no answer")
            steps = [guard_call(ctx, step) for step in steps]
        for step in steps:
            step.model = self.config.model
        usage = data.get("usage") or {}
        # One call's usage, on the step that decides (never counted twice).
        steps[-1].token_usage.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        steps[-1].token_usage.completion_tokens = int(usage.get("completion_tokens") or 0)
        return steps

    def _open_call_group(
        self, ctx: ReasoningContext, content: str, calls: list[dict[str, Any]]
    ) -> list[pb.ReactStep]:
        """A THOUGHT that records the reply's calls, and the first call's ACTION; the other
        calls come out one per step (``_queued_call``)."""
        names = ", ".join(call["name"] for call in calls)
        thought = pb.ReactStep(
            step_type=pb.STEP_TYPE_THOUGHT, content=content.strip() or f"Calling {names}."
        )
        thought.metadata[CALLS_KEY] = json.dumps({"content": content, "calls": calls})
        return [thought, self._call_step(ctx, calls[0])]

    def _queued_call(self, ctx: ReasoningContext) -> pb.ReactStep | None:
        """The next call of the last native reply that has not become a step yet."""
        group = _open_group(ctx.history, ctx.turn_id)
        if group is None:
            return None
        calls, done = group
        if done >= len(calls):
            return None
        step = self._call_step(ctx, calls[done])
        step.model = self.config.model
        return step

    def _call_step(self, ctx: ReasoningContext, call: dict[str, Any]) -> pb.ReactStep:
        """One native call as an ACTION (or an ERROR naming what is wrong with it), read by
        the kernel's parser: fuzzy tool names, arguments as a string or an object, repairs."""
        text = json.dumps({"function": {"name": call["name"], "arguments": call["arguments"]}})
        step = parse_model_output(text, ctx.tools).steps[-1]
        if step.step_type not in (pb.STEP_TYPE_ACTION, pb.STEP_TYPE_ERROR):
            step = pb.ReactStep(
                step_type=pb.STEP_TYPE_ERROR,
                content=f"{call['name']!r} is not a tool; answer in plain text instead.",
            )
        step = guard_call(ctx, step)
        step.metadata[CALL_ID_KEY] = call["id"]
        return step


def guard_call(ctx: ReasoningContext, step: pb.ReactStep) -> pb.ReactStep:
    """A model's side-effect ACTION checked against the person's words before anything runs
    (the planner's plan check, ``cloud_agent.planner.plan_check``: arguments grounded,
    counts as asked, with the turn's earlier side effects): a refused call becomes an ERROR
    naming why, which the model sees as the call's result (a ``tool`` message in native
    mode), so it can correct itself or answer without it."""
    from cloud_agent.planner.clauses import normalise
    from cloud_agent.planner.declared import guard_declared
    from cloud_agent.planner.plan_check import check_plan
    from understanding.tools import SIDE_EFFECT_TOOLS

    if step.step_type != pb.STEP_TYPE_ACTION or step.tool not in SIDE_EFFECT_TOOLS:
        return guard_declared(ctx, step)  # a declared tool's, or no side effect: as it is
    earlier = [
        (s.tool, from_struct(s.arguments))
        for s in ctx.history
        if s.turn_id == ctx.turn_id
        and s.step_type == pb.STEP_TYPE_ACTION
        and s.tool in SIDE_EFFECT_TOOLS
    ]
    verdict = check_plan(normalise(ctx.query), [*earlier, (step.tool, from_struct(step.arguments))])
    if verdict.ok:
        return step
    refused = pb.ReactStep(
        step_type=pb.STEP_TYPE_ERROR,
        content=(
            f"{step.tool} was not run: {verdict.reason} ({verdict.part!r}). Use the person's "
            "own words for its arguments, or answer without it."
        ),
    )
    refused.metadata["refused_tool"] = step.tool
    return refused


# -- reading replies -----------------------------------------------------------------------


def _problem(response: httpx.Response) -> tuple[str | None, float | None]:
    """What is wrong with a response (None: nothing) and the server's Retry-After."""
    status = response.status_code
    if status < 400:
        return None, None
    detail = response.text[:200].strip()
    problem = f"HTTP {status}" + (f": {detail}" if detail else "")
    if status in (429, 503):
        return problem, retry_after_s(response.headers.get("Retry-After"))
    return problem, None


def retry_after_s(value: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (delta-seconds or an HTTP date); None if absent."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _refuses_tools(response: httpx.Response, status: int) -> bool:
    """Whether an error to a request with ``tools`` says the server cannot do tools."""
    if status in _NO_TOOLS_STATUS:
        return True
    return status >= 500 and "tool" in response.text[:500].lower()


def _content_text(content: Any) -> str:
    """``message.content`` as text: a string, null, or a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _tool_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The reply's calls as ``{"id", "name", "arguments"}`` (arguments a JSON string or an
    object, as sent); the legacy ``function_call`` counts as one call."""
    raw = message.get("tool_calls")
    if not isinstance(raw, list):
        raw = [{"function": message["function_call"]}] if message.get("function_call") else []
    calls = []
    for index, call in enumerate(raw):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        arguments = function.get("arguments")
        if arguments is None or arguments == "":
            arguments = {}
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
        calls.append(
            {"id": call_id or f"call_{index}", "name": function["name"], "arguments": arguments}
        )
    return calls


# -- transcripts ---------------------------------------------------------------------------


def _is_outcome(step: pb.ReactStep) -> bool:
    """A step that one call of a reply turns into: its ACTION or an ERROR in its place."""
    return step.step_type == pb.STEP_TYPE_ACTION or (
        step.step_type == pb.STEP_TYPE_ERROR and step.stop_reason == pb.STOP_REASON_UNSPECIFIED
    )


def _open_group(history: Sequence[pb.ReactStep], turn_id: int) -> tuple[list[Any], int] | None:
    """The last native reply of the turn (its calls) and how many have become steps; None
    once a step that is not one of its calls follows it (another backend took over)."""
    outcomes: list[pb.ReactStep] = []
    for step in reversed(history):
        if step.turn_id != turn_id:
            return None
        if step.step_type == pb.STEP_TYPE_THOUGHT and CALLS_KEY in step.metadata:
            calls: list[Any] = json.loads(step.metadata[CALLS_KEY])["calls"]
            made = [s.metadata.get(CALL_ID_KEY) for s in reversed(outcomes)]
            if made != [call["id"] for call in calls[: len(made)]]:
                return None
            return calls, len(made)
        if _is_outcome(step):
            outcomes.append(step)
    return None


def _arguments_json(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _native_transcript(steps: Sequence[pb.ReactStep]) -> list[dict[str, Any]]:
    """Native mode: assistant messages with ``tool_calls``, one ``tool`` message per call.

    Steps another backend made (a fallback served some steps) are written as if they had
    been native calls, with the act id as the call id; calls of a reply that never ran
    (another backend took over first) get a ``tool`` message saying so, as the API
    requires an answer for every call.
    """
    messages: list[dict[str, Any]] = []
    calls: list[Any] = []
    position = 0
    call_of_act: dict[str, str] = {}

    def close_group() -> None:
        nonlocal calls, position
        for call in calls[position:]:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": NOT_RUN})
        calls, position = [], 0

    for step in steps:
        kind = step.step_type
        in_group = (
            _is_outcome(step)
            and position < len(calls)
            and step.metadata.get(CALL_ID_KEY) == calls[position]["id"]
        )
        if kind == pb.STEP_TYPE_THOUGHT and CALLS_KEY in step.metadata:
            close_group()
            group = json.loads(step.metadata[CALLS_KEY])
            calls = group["calls"]
            messages.append(
                {
                    "role": "assistant",
                    "content": group["content"] or None,
                    "tool_calls": [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {
                                "name": call["name"],
                                "arguments": _arguments_json(call["arguments"]),
                            },
                        }
                        for call in calls
                    ],
                }
            )
        elif in_group:
            call_id = calls[position]["id"]
            position += 1
            if kind == pb.STEP_TYPE_ACTION:
                call_of_act[step.act_id] = call_id
            else:
                messages.append({"role": "tool", "tool_call_id": call_id, "content": step.content})
        elif kind == pb.STEP_TYPE_THOUGHT:
            close_group()
            messages.append({"role": "assistant", "content": step.content})
        elif kind == pb.STEP_TYPE_ACTION:
            close_group()
            call_of_act[step.act_id] = step.act_id
            arguments = json.dumps(from_struct(step.arguments))
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": step.act_id,
                            "type": "function",
                            "function": {"name": step.tool, "arguments": arguments},
                        }
                    ],
                }
            )
        elif kind == pb.STEP_TYPE_OBSERVATION and step.act_id in call_of_act:
            messages.append(
                {"role": "tool", "tool_call_id": call_of_act[step.act_id], "content": step.content}
            )
        elif kind == pb.STEP_TYPE_OBSERVATION:
            messages.append({"role": "user", "content": f"Observation: {step.content}"})
        elif kind == pb.STEP_TYPE_ERROR:
            close_group()
            messages.append({"role": "user", "content": f"Error: {step.content}"})
    close_group()
    return messages


def _text_transcript(steps: Sequence[pb.ReactStep]) -> list[dict[str, Any]]:
    """Text mode: the ReAct transcript (Thought, Action, Observation, Error lines)."""
    messages: list[dict[str, Any]] = []
    for step in steps:
        kind = step.step_type
        if kind == pb.STEP_TYPE_THOUGHT:
            messages.append({"role": "assistant", "content": f"Thought: {step.content}"})
        elif kind == pb.STEP_TYPE_ACTION:
            args = json.dumps(from_struct(step.arguments))
            text = f"Action: {step.tool}\nAction Input: {args}"
            messages.append({"role": "assistant", "content": text})
        elif kind == pb.STEP_TYPE_OBSERVATION:
            messages.append({"role": "user", "content": f"Observation: {step.content}"})
        elif kind == pb.STEP_TYPE_ERROR:
            messages.append({"role": "user", "content": f"Error: {step.content}"})
    return messages


def _alternate(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge consecutive user (or assistant) messages into one, so roles alternate; tool
    messages stay one per call (templates expect them in a row after the calls)."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        last = merged[-1] if merged else None
        if last is None or last["role"] != message["role"] or message["role"] == "tool":
            merged.append(dict(message))
            continue
        texts = [t for t in (last.get("content"), message.get("content")) if t]
        last["content"] = "\n".join(texts) if texts else None
        if message.get("tool_calls"):
            last["tool_calls"] = list(last.get("tool_calls") or []) + message["tool_calls"]
    return merged
