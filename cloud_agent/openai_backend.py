"""The openai backend: any OpenAI-compatible chat-completions endpoint as a Reasoner.

vLLM, Ollama, llama.cpp's server and hosted APIs all speak ``POST {base}/chat/completions``.
The model is prompted in the ReAct protocol with the tools' schemas; its reply is read by
the kernel's tolerant parser. Each call has a timeout, transient failures (transport
errors, timeouts, HTTP 429/5xx) are retried with exponential backoff, and a failure that
survives the retries raises :class:`BackendRequestError`, which the fallback list counts
against this backend's circuit breaker. Token usage goes on every step (and so into the
receipt).

Example:
    >>> backend = OpenAIReasoner(OpenAIConfig(base_url="http://127.0.0.1:8000/v1",
    ...                                       model="qwen2.5"))     # doctest: +SKIP
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from tenacity import (
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from cloud_agent.config import OpenAIConfig
from cloud_agent.errors import CloudError
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ReasoningContext, parse_model_output
from react_kernel.steps import from_struct

SYSTEM_PROMPT = """You are the cloud reasoner of a home assistant. Solve the user's query \
step by step with the tools below, one tool call per reply, in exactly this format:

Thought: what you will do next and why
Action: <tool name>
Action Input: <JSON object of the tool's arguments>

When you have the answer (or no tool can help), reply:

Thought: why you are done
Final Answer: <the answer for the user>

Never invent tool results: wait for the Observation. Tools:
{tools}"""


class BackendRequestError(CloudError):
    """The endpoint failed after retries (HTTP error, timeout, malformed response)."""


class _Retryable(Exception):
    """A failure worth another attempt."""


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, _Retryable | httpx.TransportError)


class OpenAIReasoner:
    """A Reasoner backed by an OpenAI-compatible chat-completions endpoint."""

    name = "openai"
    blocking = True  # HTTP calls: the server runs its steps on worker threads

    def __init__(self, config: OpenAIConfig, *, client: httpx.Client | None = None) -> None:
        self.config = config
        headers = {"Content-Type": "application/json"}
        key = config.resolved_api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._client = client or httpx.Client(
            base_url=config.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(config.timeout_s),
        )
        self._complete = retry(
            reraise=True,
            stop=stop_after_attempt(max(1, config.max_retries + 1)),
            wait=wait_exponential(multiplier=0.1, max=2.0),
            retry=retry_if_exception(_retryable),
        )(self._complete_once)

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    def messages(self, ctx: ReasoningContext) -> list[dict[str, str]]:
        """The chat messages for the context: system prompt, query, the ReAct transcript."""
        tools = "\n".join(json.dumps(schema) for schema in ctx.tools.schemas())
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT.format(tools=tools)},
            {"role": "user", "content": ctx.query},
        ]
        for step in ctx.history:
            if step.turn_id != ctx.turn_id:
                continue
            if step.step_type == pb.STEP_TYPE_THOUGHT:
                messages.append({"role": "assistant", "content": f"Thought: {step.content}"})
            elif step.step_type == pb.STEP_TYPE_ACTION:
                args = json.dumps(from_struct(step.arguments))
                text = f"Action: {step.tool}\nAction Input: {args}"
                messages.append({"role": "assistant", "content": text})
            elif step.step_type == pb.STEP_TYPE_OBSERVATION:
                messages.append({"role": "user", "content": f"Observation: {step.content}"})
            elif step.step_type == pb.STEP_TYPE_ERROR:
                messages.append({"role": "user", "content": f"Error: {step.content}"})
        return messages

    def _complete_once(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.post("chat/completions", json=body)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out after {self.config.timeout_s:g} s") from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise _Retryable(f"HTTP {response.status_code}")
        if response.status_code >= 400:
            raise BackendRequestError(f"HTTP {response.status_code}: {response.text[:200]}")
        try:
            data: dict[str, Any] = response.json()
        except ValueError as exc:
            raise BackendRequestError("the endpoint did not answer JSON") from exc
        return data

    def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """Ask the model for its next step and parse the reply."""
        body = {
            "model": self.config.model,
            "messages": self.messages(ctx),
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "stop": ["\nObservation:"],
        }
        try:
            data = self._complete(body)
        except _Retryable as exc:
            raise BackendRequestError(f"{self.config.base_url}: {exc}") from exc
        except httpx.HTTPError as exc:
            raise BackendRequestError(f"{self.config.base_url}: {exc}") from exc
        try:
            text = str(data["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError) as exc:
            raise BackendRequestError("the response has no choices[0].message.content") from exc
        usage = data.get("usage") or {}
        steps = parse_model_output(text, ctx.tools).steps
        for step in steps:
            step.model = self.config.model
        if steps:  # one call's usage, on the step that decides (never counted twice)
            steps[-1].token_usage.prompt_tokens = int(usage.get("prompt_tokens") or 0)
            steps[-1].token_usage.completion_tokens = int(usage.get("completion_tokens") or 0)
        return steps
