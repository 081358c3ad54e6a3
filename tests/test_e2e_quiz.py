"""/quiz through the Discord stand-in: a member takes a quiz with buttons."""

from __future__ import annotations

from tests.discord_fake.server import FakeDiscord
from tests.support.bot import StartBot


def custom_ids(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        c["custom_id"] for row in result.components for c in row["components"] if "custom_id" in c
    ]


async def test_quiz_start_answer_next_until_score(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot():
        res = await fake.slash(member, "quiz start", topic="gradient-accumulation", questions=2)
        assert res.ephemeral
        assert res.first_response_s < 3
        assert res.embeds[0]["title"] == "Question 1/2"
        print(custom_ids(res))
