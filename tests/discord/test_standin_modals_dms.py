"""The stand-in's modals (Discord's limits on what a bot sends, a member's client on what
it submits) and DMs (a DM channel per user, the switch that refuses them with 50007)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
import pytest

from testkit.standin.modals import modal_problems, submission
from testkit.standin.server import FakeDiscord


def label(text: str, component: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": 18, "label": text, "component": component, **extra}


def text_input(custom_id: str = "t", **extra: Any) -> dict[str, Any]:
    return {"type": 4, "custom_id": custom_id, "style": 1, "label": None, **extra}


def modal(*components: dict[str, Any], title: str = "Title") -> dict[str, Any]:
    return {"custom_id": "m:x", "title": title, "components": list(components)}


def test_a_valid_modal_has_no_problems() -> None:
    select = {"type": 3, "custom_id": "s", "options": [{"label": "A", "value": "a"}]}
    row = {"type": 1, "components": [{"type": 4, "custom_id": "r", "style": 2, "label": "Old"}]}
    assert modal_problems(modal(label("Text", text_input()), label("Pick", select), row)) == []


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (modal(label("L", text_input()), title="x" * 46), "title must be 1-45 characters"),
        (modal(), "a modal holds 1-5 components, got 0"),
        (modal(*[label("L", text_input(f"t{n}")) for n in range(6)]), "got 6"),
        (modal(label("x" * 46, text_input())), "label must be 1-45 characters"),
        (modal(label("L", text_input(), description="d" * 101)), "description must be at most"),
        (modal(label("L", text_input(max_length=4001))), "max_length must be 1-4000"),
        (modal(label("L", text_input(max_length=5, value="toolong"))), "prefilled value"),
        (modal(label("L", text_input(label="inner"))), "has no label of its own"),
        (modal(label("L", text_input()), label("M", text_input())), "share a custom_id"),
        (modal({"type": 2, "custom_id": "b", "style": 1}), "type 2 is not allowed in a modal"),
    ],
)
def test_each_of_discords_limits_is_checked(broken: dict[str, Any], problem: str) -> None:
    assert any(problem in found for found in modal_problems(broken)), modal_problems(broken)


def test_a_members_client_submits_only_what_the_inputs_allow() -> None:
    form = modal(
        label("Need", text_input("need", max_length=5)),
        label("Optional", text_input("opt", required=False)),
        label("Pick", {"type": 3, "custom_id": "s", "options": [{"label": "A", "value": "a"}]}),
    )
    data = submission(form, {"need": "hello", "s": ["a"]})
    assert data["components"][0] == {
        "type": 18,
        "component": {"type": 4, "custom_id": "need", "value": "hello"},
    }
    assert data["components"][2]["component"]["values"] == ["a"]
    with pytest.raises(AssertionError, match="is required"):
        submission(form, {"s": ["a"]})
    with pytest.raises(AssertionError, match="takes 0-5 characters"):
        submission(form, {"need": "too long", "s": ["a"]})
    with pytest.raises(AssertionError, match="not all among the options"):
        submission(form, {"need": "x", "s": ["b"]})
    with pytest.raises(LookupError, match="no inputs"):
        submission(form, {"need": "x", "s": ["a"], "ghost": "?"})


async def test_dms_open_a_channel_and_a_refusing_member_gets_50007(
    discord_fake: FakeDiscord, run_bot: Callable[..., Any]
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    fake.refuse_dms(citra)
    async with run_bot(discord.Client(intents=discord.Intents.none())) as client:
        channel = await client.create_dm(discord.Object(id=bob.id))
        assert channel.id == fake.dm_channel(bob).id
        await channel.send("hello bob")
        assert [m.content for m in fake.dms(bob)] == ["hello bob"]

        closed = await client.create_dm(discord.Object(id=citra.id))  # opening works
        with pytest.raises(discord.Forbidden) as refused:
            await closed.send("hello citra")
        assert refused.value.code == 50007 and refused.value.status == 403
        assert fake.dms(citra) == []
        fake.refuse_dms(citra, refuse=False)
        await closed.send("hello again")
        assert (await fake.wait_for_dm(citra)).content == "hello again"
