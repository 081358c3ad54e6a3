"""Modals in the stand-in: Discord's limits on the modal a bot sends (callback type 9), and
the submission a member's client builds from it (interaction type 5, MODAL_SUBMIT).

Limits (Discord's docs and its OpenAPI spec): custom_id 1-100 characters; title 1-45;
1-5 top-level components, each an action row holding one text input (the older form), a
label (type 18, text 1-45, description up to 100) wrapping a text input or a string select,
or a text display (type 10). A text input: style 1 or 2, min_length 0-4000, max_length
1-4000, a prefilled value and placeholder inside them (value up to 4000, placeholder 100);
a label's text input has no label of its own (null). A select: 1-25 options (label, value and
description up to 100 each). A bot that breaks one gets 400 Invalid Form Body here, as it
would from Discord. The client enforces each input's `required`, `min_length` and
`max_length`, so `submission` refuses values a member could not have sent.
"""

from __future__ import annotations

from typing import Any

TITLE_MAX = 45
LABEL_MAX = 45
DESCRIPTION_MAX = 100
CUSTOM_ID_MAX = 100
TEXT_MAX = 4000
PLACEHOLDER_MAX = 100
COMPONENTS_MAX = 5
OPTIONS_MAX = 25
TEXT_INPUT, STRING_SELECT, ACTION_ROW, LABEL, TEXT_DISPLAY = 4, 3, 1, 18, 10


def _text(value: Any, low: int, high: int) -> bool:
    return isinstance(value, str) and low <= len(value) <= high


def _inputs(modal: dict[str, Any]) -> list[dict[str, Any]]:
    """The modal's inputs (text inputs and selects), wherever they sit."""
    found = []
    for component in modal.get("components") or []:
        if component.get("type") == ACTION_ROW:
            found.extend(component.get("components") or [])
        elif component.get("type") == LABEL:
            found.append(component.get("component") or {})
    return found


def _text_input_problems(item: dict[str, Any], where: str, in_label: bool) -> list[str]:
    problems = []
    if item.get("style") not in (1, 2):
        problems.append(f"{where}: style must be 1 (short) or 2 (paragraph)")
    if in_label and item.get("label") is not None:
        problems.append(f"{where}: a text input inside a label has no label of its own")
    if not in_label and not _text(item.get("label"), 1, LABEL_MAX):
        problems.append(f"{where}: label must be 1-{LABEL_MAX} characters")
    low = item.get("min_length", 0)
    high = item.get("max_length", TEXT_MAX)
    if not (isinstance(low, int) and 0 <= low <= TEXT_MAX):
        problems.append(f"{where}: min_length must be 0-{TEXT_MAX}")
    if not (isinstance(high, int) and 1 <= high <= TEXT_MAX):
        problems.append(f"{where}: max_length must be 1-{TEXT_MAX}")
    elif isinstance(low, int) and low > high:
        problems.append(f"{where}: min_length is above max_length")
    value = item.get("value")
    if value is not None and not _text(
        value, 0, min(TEXT_MAX, high if isinstance(high, int) else TEXT_MAX)
    ):
        problems.append(f"{where}: the prefilled value is longer than max_length (or 4000)")
    placeholder = item.get("placeholder")
    if placeholder is not None and not _text(placeholder, 0, PLACEHOLDER_MAX):
        problems.append(f"{where}: placeholder must be at most {PLACEHOLDER_MAX} characters")
    return problems


def _select_problems(item: dict[str, Any], where: str) -> list[str]:
    options = item.get("options") or []
    problems = []
    if not 1 <= len(options) <= OPTIONS_MAX:
        problems.append(f"{where}: a select needs 1-{OPTIONS_MAX} options")
    for option in options:
        for key in ("label", "value"):
            if not _text(option.get(key), 1, 100):
                problems.append(f"{where}: option {key} must be 1-100 characters")
        if option.get("description") is not None and not _text(option["description"], 0, 100):
            problems.append(f"{where}: option description must be at most 100 characters")
    return problems


def modal_problems(modal: dict[str, Any]) -> list[str]:
    """Why Discord would refuse this modal (empty: it is valid)."""
    problems = []
    if not _text(modal.get("custom_id"), 1, CUSTOM_ID_MAX):
        problems.append(f"custom_id must be 1-{CUSTOM_ID_MAX} characters")
    if not _text(modal.get("title"), 1, TITLE_MAX):
        problems.append(f"title must be 1-{TITLE_MAX} characters, got {modal.get('title')!r}")
    components = modal.get("components") or []
    if not 1 <= len(components) <= COMPONENTS_MAX:
        problems.append(f"a modal holds 1-{COMPONENTS_MAX} components, got {len(components)}")
    for index, component in enumerate(components):
        where = f"components[{index}]"
        kind = component.get("type")
        if kind == ACTION_ROW:
            inner = component.get("components") or []
            if len(inner) != 1 or inner[0].get("type") != TEXT_INPUT:
                problems.append(f"{where}: an action row in a modal holds one text input")
            else:
                problems.extend(_text_input_problems(inner[0], where, in_label=False))
        elif kind == LABEL:
            if not _text(component.get("label"), 1, LABEL_MAX):
                problems.append(f"{where}: label must be 1-{LABEL_MAX} characters")
            description = component.get("description")
            if description is not None and not _text(description, 0, DESCRIPTION_MAX):
                problems.append(f"{where}: description must be at most {DESCRIPTION_MAX}")
            inner_item = component.get("component") or {}
            if inner_item.get("type") == TEXT_INPUT:
                problems.extend(_text_input_problems(inner_item, where, in_label=True))
            elif inner_item.get("type") == STRING_SELECT:
                problems.extend(_select_problems(inner_item, where))
            else:
                problems.append(f"{where}: a label wraps a text input or a string select")
        elif kind != TEXT_DISPLAY:
            problems.append(f"{where}: type {kind} is not allowed in a modal")
    ids = [item.get("custom_id") for item in _inputs(modal)]
    for custom_id in ids:
        if not _text(custom_id, 1, CUSTOM_ID_MAX):
            problems.append(f"an input's custom_id must be 1-{CUSTOM_ID_MAX} characters")
    if len(set(ids)) != len(ids):
        problems.append("two inputs share a custom_id")
    return problems


def _answer(component: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    kind = component["type"]
    if kind == ACTION_ROW:
        return {"type": 1, "components": [_answer(c, values) for c in component["components"]]}
    if kind == LABEL:
        return {"type": LABEL, "component": _answer(component["component"], values)}
    custom_id = component.get("custom_id", "")
    if kind == TEXT_INPUT:
        given = values.get(custom_id, component.get("value") or "")
        if not isinstance(given, str):
            raise TypeError(f"text input {custom_id!r} takes a string")
        low = component.get("min_length", 0)
        high = component.get("max_length", TEXT_MAX)
        if component.get("required", True) and not given:
            raise AssertionError(f"{custom_id!r} is required: Discord's client would not submit")
        if given and not low <= len(given) <= high:
            raise AssertionError(
                f"{custom_id!r} takes {low}-{high} characters, got {len(given)}: "
                "Discord's client would not submit"
            )
        return {"type": TEXT_INPUT, "custom_id": custom_id, "value": given}
    picked = values.get(custom_id, [])
    picked = [picked] if isinstance(picked, str) else list(picked)
    allowed = {option["value"] for option in component.get("options") or []}
    if any(value not in allowed for value in picked):
        raise AssertionError(f"{custom_id!r}: {picked} are not all among the options {allowed}")
    low = component.get("min_values", 1)
    high = component.get("max_values", 1)
    if component.get("required", True) and not low <= len(picked) <= high:
        raise AssertionError(f"{custom_id!r} takes {low}-{high} choices, got {len(picked)}")
    return {"type": kind, "custom_id": custom_id, "values": picked}


def submission(modal: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The MODAL_SUBMIT data a member's client sends for `values` (custom_id -> text, or a
    list of a select's values); prefilled text inputs keep their value unless given."""
    unknown = set(values) - {item.get("custom_id") for item in _inputs(modal)}
    if unknown:
        raise LookupError(f"the modal has no inputs {sorted(unknown)}")
    return {
        "custom_id": modal["custom_id"],
        "components": [
            _answer(c, values) for c in modal.get("components") or [] if c["type"] != TEXT_DISPLAY
        ],
    }
