"""The names of the parser's fallbacks: every repair it may make to a model's reply.

A step the parser repaired names its fallbacks in ``metadata["parser_fallbacks"]``
(comma-separated, in the order they fired); whoever runs the parser counts them if it
wants to (the cloud's metrics do, from the steps they see).
"""

from __future__ import annotations

#: Every fallback name the parser may record, with what it means.
FALLBACKS: dict[str, str] = {
    "think_block": "a <think> block was read as the thought",
    "leading_chatter": "text before the first label was read as the thought",
    "stripped_fence": "a markdown code fence was removed",
    "json_with_chatter": "a JSON reply had text around it",
    "input_trailing_text": "text after the JSON Action Input was ignored",
    "json_repaired": "invalid JSON was repaired (quotes, trailing commas, Python literals)",
    "arguments_as_string": "JSON arguments were given as a JSON string",
    "tool_name_normalized": "the tool name differed in case, spaces or separators",
    "tool_name_fuzzy": "the tool name had a typo (edit distance)",
    "tool_name_in_text": "the tool name was found inside a longer Action text",
    "input_inline": "the input was written inline: tool(...) or tool[...]",
    "input_unlabeled": "the input followed the Action without an 'Action Input:' label",
    "input_key_value": "the input was read as key: value lines",
    "input_single_string": "the input was read as the tool's single string argument",
    "input_positional": "a JSON list was mapped onto the required arguments in order",
    "input_keys_renamed": "argument names were matched to the schema ignoring case",
    "input_coerced": "argument values were coerced to the schema's types",
    "input_unwrapped": "arguments were nested in an extra object and unwrapped",
    "multiple_blocks": "several actions in one reply; the first was taken",
    "hallucinated_observation": "text after an invented 'Observation:' was dropped",
    "both_action_and_final": "a reply had both an action and a final answer; the first was taken",
    "final_answer_as_action": "a final answer was given as an action (final_answer tool)",
    "bare_text_final": "a reply with no labels was read as the final answer",
    "internal_error": "the parser hit a bug and returned an ERROR step",
}
