"""Persistent buttons through the Discord stand-in: the ids that servers hold today (their
exact formats, written out) still work, and a press that no template takes gets a clear,
private answer in time, never a dead button."""

from __future__ import annotations

from cogs.ui.buttons import ROUTER, PersistentButton, UnclaimedButtons
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import open_round, positions, question, quick_bot


def leaves(base: type[PersistentButton]) -> set[str]:
    """The templates of every button class that has no subclass of its own."""
    found: set[str] = set()
    for sub in base.__subclasses__():
        found |= leaves(sub) if sub.__subclasses__() else {sub.pattern.pattern}
    return found


async def test_old_ids_still_work_and_ids_no_template_takes_are_answered(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot) as bot:
        # Every button class is registered where unclaimed presses are told apart.
        router = bot.get_cog(ROUTER)
        assert isinstance(router, UnclaimedButtons)
        assert {p.pattern for p in router.patterns} == leaves(PersistentButton)

        live = await open_round(fake, host, questions=1, seconds=60)
        joined = await fake.click(live.hall, f"lv:{live.id}:j", member)
        assert joined.ephemeral and joined.content.startswith("You joined the round")
        await fake.click(live.hall, f"lv:{live.id}:s", host)
        first = await question(fake, live.thread, 1)
        right, _ = await positions(bot, live.id, 1)
        answered = await fake.click(first, f"lv:{live.id}:1:{right}", member)
        assert answered.content.startswith("Your answer: ")

        cases = {
            "lv:garbage": "⚠️ This button belongs to no live round I know.",
            f"lv:{live.id}:31:0": "⚠️ This button belongs to no live round I know.",
            "dq:x": "⚠️ This daily question is closed",
            "qz:nope": "⚠️ This quiz is no longer active",
            "lb:streak:1:fr": "⚠️ This button is no longer understood",
            "rq:h:1": "⚠️ This button is no longer understood",
            "zz:what": "⚠️ This button is no longer understood",
        }
        buttons = [{"type": 2, "style": 1, "label": "?", "custom_id": c} for c in cases]
        rows = [{"type": 1, "components": buttons[i : i + 5]} for i in range(0, len(buttons), 5)]
        forged = fake.store_message(fake.channel, fake.bot_user, {"components": rows})
        for custom_id, expected in cases.items():
            reply = await fake.click(forged, custom_id, member)
            assert reply.ephemeral and reply.content.startswith(expected), (custom_id, reply)
