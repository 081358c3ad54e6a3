"""/quizadmin add with the formats teachers use (GIFT, Aiken, CSV) through the stand-in:
imported in the admin's (or the given) language, unsupported and bad questions listed and
skipped while the good ones import, changes listed, a file with no good question refused,
community ids reserved."""

from __future__ import annotations

from sqlmodel import select

from bot.db.tables.quiz import CustomQuiz
from bot.discord.client import QuizTutorBot
from testkit.standin.models import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.guilds import quiz_yaml

GIFT = b"""\
// Week 3
::w3-01:: Which format has the larger range? {
  =bf16 # Eight exponent bits, like fp32.
  ~fp16
}

::tf:: fp16 has 10 mantissa bits. {T}

::w3-02:: How many exponent bits does fp16 have? {=5 ~8 ~10}
"""


def done(message: FakeMessage) -> bool:
    return bool(message.content)


async def stored(bot: QuizTutorBot) -> dict[str, str]:
    async with bot.services.db.session() as session:
        return {row.quiz_id: row.source for row in (await session.exec(select(CustomQuiz))).all()}


async def test_gift_csv_and_aiken_uploads(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    citra = fake.users_list[1]
    async with start_bot() as bot:
        res = await fake.slash(fake.admin, "quizadmin add", file=("week-3.gift", GIFT))
        reply = (await res.wait_original(done)).content
        assert reply.startswith(
            "✅ Imported **week-3** (`week-3`, 2 question(s)) from GIFT. The other language"
        )
        assert (
            "Skipped (1), not imported:\n```\nweek-3.gift:7: skipped: a true/false question"
            in reply
        )
        source = (await stored(bot))["week-3"]
        assert "untranslated:" in source and "- id" in source  # stored as the YAML it became
        quiz = bot.services.bank.quiz("week-3")
        assert [q.id for q in quiz.questions] == ["w3-01", "w3-02"]
        # Members take it at once; citra reads the English copy, flagged.
        res = await fake.slash(citra, "quiz start", topic="week-3")
        assert "Belum diterjemahkan" in res.embeds[0]["footer"]["text"]

        # In Indonesian, named by the option; a CSV read by its content (.txt).
        csv_text = (
            b"prompt,choice_a,choice_b,answer,explanation\n"
            b"Berapa bit eksponen bf16?,8,5,A,Sama dengan fp32.\n"
        )
        res = await fake.slash(
            fake.admin, "quizadmin add", file=("minggu-4.txt", csv_text), language="id"
        )
        assert "from CSV" in (await res.wait_original(done)).content
        question = bot.services.bank.quiz("minggu-4").questions[0]
        assert question.untranslated == ["en"] and question.prompt["id"].startswith("Berapa")

        # A malformed file is refused whole, with its line; nothing is stored.
        bad = b"Q?\nA. x\nB. y\nANSWER: Z\n"
        res = await fake.slash(fake.admin, "quizadmin add", file=("bad.aiken", bad))
        text = (await res.wait_original(done)).content
        assert "bad.aiken:4: skipped: ANSWER: Z is not one of the choices' letters" in text
        assert "bad" not in await stored(bot)

        # The community quizzes' ids are reserved: an upload cannot take them.
        taken = quiz_yaml("community-1", "community-q1").encode()
        res = await fake.slash(fake.admin, "quizadmin add", file=("c.yaml", taken))
        text = (await res.wait_original(done)).content
        assert "already used by another quiz: community-1, community-q1" in text
        assert sorted(await stored(bot)) == ["minggu-4", "week-3"]

        # A Moodle export: HTML converted, a bad question skipped, partial credit noted.
        moodle = (
            b"::Q1::[html]<p>Is <b>bf16</b>&nbsp;wider?</p>{=[html]<p>yes</p> ~%-50%no}\n\n"
            b"::Q2:: Which? {=a ~" + b"b" * 206 + b"}\n"
        )
        res = await fake.slash(fake.admin, "quizadmin add", file=("moodle.gift", moodle))
        reply = (await res.wait_original(done)).content
        assert "Skipped (1), not imported:\n```\nmoodle.gift:3: skipped: choice B is 206" in reply
        assert "Imported with a change (1):\n```\nmoodle.gift:1: note: partial credit" in reply
        question = bot.services.bank.quiz("moodle").questions[0]
        assert question.prompt["en"] == "Is **bf16** wider?" and question.title == "Q1"
