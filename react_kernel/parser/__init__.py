"""The tolerant parser: model text -> [THOUGHT?, ACTION] | [THOUGHT?, FINAL_ANSWER] | [ERROR].

It reads both forms that models produce:

- the text protocol: ``Thought:`` / ``Action:`` / ``Action Input:`` / ``Observation:`` /
  ``Final Answer:`` labels at the start of a line (never inside a sentence), in any case,
  in markdown bold or headings, numbered, with
  multi-line content, fences, leading chatter, ``<think>`` blocks and several blocks in
  one reply (the first action wins; anything after a hallucinated ``Observation:`` is
  dropped);
- JSON: ``{"thought", "action", "action_input"}`` and the usual variants (``tool`` /
  ``name`` / ``arguments`` / OpenAI ``tool_calls``), in fences or with text around it,
  repaired when it has single quotes, trailing commas or Python literals.

Tool names go through :meth:`ToolRegistry.match` (case, spaces, underscores, small
typos; never a guess between two tools). Action Input falls back from JSON to
``key: value`` lines to a single string argument; values are coerced to the schema's
types. Every fallback that fires is named on the step (``metadata["parser_fallbacks"]``;
the parser keeps no counters: the cloud's metrics count what they see on the steps). It
never raises: a reply it cannot use becomes an ERROR step that says what was wrong, which
the reasoner sees on its next turn.

The package, one concern a module::

    parse.py        parse_model_output() and ParseResult: the entry point
    dispatch.py     ReplyParser: the text protocol or JSON -> THOUGHT/ACTION/FINAL steps
    text.py         labels, fences, <think> blocks, final-answer cleaning
    loose_json.py   JSON with chatter, repairs, several objects, tool-call shapes
    coercion.py     key: value input, single-string input, values to schema types
    fallbacks.py    FALLBACKS: every repair's name and meaning
"""

from __future__ import annotations

from react_kernel.parser.fallbacks import FALLBACKS
from react_kernel.parser.parse import ParseResult, parse_model_output

__all__ = ["FALLBACKS", "ParseResult", "parse_model_output"]
