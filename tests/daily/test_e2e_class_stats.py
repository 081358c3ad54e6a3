"""/daily stats through the Discord stand-in: the class table and its PNG chart, on a
daily-question history seeded in the bot's real database (tests/support/analytics.py)."""

from __future__ import annotations

import re

from bot.common.text import clip
from bot.common.times import utcnow
from bot.stats.charts import PNG_MAGIC
from testkit.standin.server import FakeDiscord
from tests.support.analytics import seed_class, wrong_choices
from tests.support.bot import StartBot


async def test_daily_stats_shows_the_weakest_questions_their_misconception_and_a_chart(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot() as bot:
        bank = bot.services.bank
        q1, q2, q3 = (q.id for q in bank.quiz("mixed-precision").questions[:3])
        today = utcnow().date()  # no /daily setup: the server's day is UTC's
        await seed_class(bot.services.db, bank, fake.guild.id, today, (q1, q2, q3))

        res = await fake.slash(fake.admin, "daily stats")
        assert res.ephemeral and res.type == 5  # deferred before the chart is drawn
        reply = await res.wait_followup()
        assert reply.ephemeral
        embed, memory = reply.embeds  # Learning II: the memory model, in a second embed
        memory_fields = {f["name"]: f["value"] for f in memory["fields"]}
        assert memory_fields["Memory model"].startswith("FSRS's defaults: no fit yet")
        # The summary of recent days is still there (5 posts in this server, newest first).
        assert embed["description"].splitlines()[0].startswith(f"{today.isoformat()} · {q3}")
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        w1 = wrong_choices(bank, q1)[0]
        w1_text = bank.question(q1).choice_texts("en")[w1]
        rows = fields["Weakest questions (settled days)"].splitlines()
        assert rows[0] == f"`{q1}` 20% (1/5) · most chosen wrong: “{clip(w1_text, 60)}” (3 times)"
        assert rows[1].startswith(f"`{q2}` 75% (3/4) · most chosen wrong: “")
        assert len(rows) == 2  # the open question gives nothing away
        weeks = fields["Members per week"].splitlines()
        assert len(weeks) == 4
        answers = [int(n) for n in re.findall(r"(\d+) answer", "\n".join(weeks))]
        assert sum(answers) == 4 + 3 + 1 + 1  # the post 70 days ago is outside the weeks

        chart = reply.attachments[0]
        assert chart.filename == "daily-stats.png"
        assert chart.data.startswith(PNG_MAGIC) and len(chart.data) > 1000
        assert embed["image"]["url"] == "attachment://daily-stats.png"

        # A member without Manage Server gets no stats (and no chart).
        member = fake.users_list[0]
        refused = await fake.slash(member, "daily stats")
        assert refused.attachments == [] and refused.embeds == []
        assert "Manage Server" in refused.text
