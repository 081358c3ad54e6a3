"""The community's questions in end-to-end tests: filling the suggestion form, the review
queue's buttons, the Report button's form."""

from __future__ import annotations

from typing import Any

from testkit.standin.driver import InteractionResult
from testkit.standin.models import FakeMessage, FakeUser, iter_components
from testkit.standin.server import FakeDiscord

VALID = {
    "prompt": "Which dtype keeps fp32's exponent range in 16 bits?",
    "choices": "bf16\nfp16\nint16",
    "answer": "A",
    "explanation": "bf16 keeps fp32's 8 exponent bits and drops mantissa bits.",
    "language": "en",
}


async def suggest(fake: FakeDiscord, user: FakeUser, **fields: str) -> InteractionResult:
    """`/quiz suggest`, then the form submitted with VALID overridden by `fields`."""
    shown = await fake.slash(user, "quiz suggest")
    assert shown.type == 9, shown.data
    return await fake.submit_modal(shown, {**VALID, **fields})


def custom_id(message: FakeMessage, label_start: str) -> str:
    """The custom_id of the (first) button whose label starts with `label_start`."""
    for component in iter_components(message.components):
        if str(component.get("label") or "").startswith(label_start):
            return str(component["custom_id"])
    raise AssertionError(f"no button {label_start!r}: {message.custom_ids()}")


def modal_inputs(result: InteractionResult) -> dict[str, Any]:
    """The inputs of the modal the bot opened: custom_id -> the component."""
    assert result.modal is not None, "no modal"
    found = {}
    for component in result.modal["components"]:
        inner = component.get("component") or (component.get("components") or [{}])[0]
        found[inner["custom_id"]] = inner
    return found
