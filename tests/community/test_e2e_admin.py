"""/quizadmin through the Discord stand-in: admins upload a server quiz as a YAML attachment."""

from __future__ import annotations

import discord
from sqlmodel import select

from bot.db.tables.quiz import CustomQuiz
from bot.discord.client import QuizTutorBot
from bot.quizbank.parse import MAX_FILE_BYTES
from testkit.standin.models import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.daily import WAIT, post_todays_question
from tests.support.guilds import QUIZ, other_guild, quiz_yaml


async def stored(bot: QuizTutorBot) -> list[tuple[int, str]]:
    async with bot.services.db.session() as session:
        rows = (await session.exec(select(CustomQuiz))).all()
    return sorted((row.guild_id, row.quiz_id) for row in rows)


def done(message: FakeMessage) -> bool:
    return bool(message.content)


async def test_admin_uploads_a_quiz_members_take_it_other_servers_do_not_see_it(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        # Hidden from non-admins by Discord (Manage Server on the group)...
        (group,) = [c for c in fake.registered_commands(fake.guild.id) if c["name"] == "quizadmin"]
        assert (
            int(group["default_member_permissions"]) == discord.Permissions(manage_guild=True).value
        )

        res = await fake.slash(fake.admin, "quizadmin add", file=("team.yaml", QUIZ.encode()))
        assert res.ephemeral
        reply = await res.wait_original(done)
        assert reply.content.startswith(
            "✅ Added quiz **Team Basics** (`team-basics`, 1 question(s))"
        )
        assert await stored(bot) == [(fake.guild.id, "team-basics")]

        # ... available at once to the server's members, in autocomplete and to start.
        choices = await fake.autocomplete(bob, "quiz start", "topic", "team")
        assert [c["value"] for c in choices] == ["team-basics"]
        quiz = await fake.slash(bob, "quiz start", topic="team-basics")
        assert quiz.embeds[0]["title"] == "Question 1/1"
        assert "What is 2 + 2?" in str(quiz.embeds[0])

        # Not in another server: neither offered nor startable, and its id is taken there.
        other = await other_guild(fake, bot)
        eve = next(m.user for m in other.members.values() if m.user.username == "eve")
        olga = next(m.user for m in other.members.values() if m.user.username == "olga_admin")
        channel = other.text_channels[0]
        assert not bot.services.bank.is_visible("team-basics", other.id)
        assert "team-basics" not in [q.id for q in bot.services.bank.visible_quizzes(other.id)]
        choices = await fake.autocomplete(eve, "quiz start", "topic", "team", channel=channel)
        assert choices == []
        refused = await fake.slash(eve, "quiz start", topic="team-basics", channel=channel)
        assert refused.ephemeral and "team-basics" in refused.content
        assert refused.embeds == []
        res = await fake.slash(
            olga, "quizadmin add", file=("t.yaml", QUIZ.encode()), channel=channel
        )
        reply = await res.wait_original(done)
        # Refused without naming another server's ids (they are not this server's business).
        assert "2 id(s) of this quiz are used by another server's quiz" in reply.content
        assert "team-basics" not in reply.content and "tb-01" not in reply.content
        assert await stored(bot) == [(fake.guild.id, "team-basics")]

        # Uploading the same id again replaces the server's own quiz.
        changed = QUIZ.replace("Team Basics", "Team Basics v2")
        res = await fake.slash(fake.admin, "quizadmin add", file=("team.yaml", changed.encode()))
        reply = await res.wait_original(done)
        assert reply.content.startswith("✅ Replaced quiz **Team Basics v2**")
        assert bot.services.bank.is_visible("team-basics", fake.guild.id)
        assert not bot.services.bank.is_visible("team-basics", other.id)


async def test_bad_uploads_are_explained_and_nothing_is_stored(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    admin = fake.admin
    async with start_bot() as bot:
        shipped = sorted(bot.services.bank.quizzes)

        async def upload(name: str, data: bytes, locale: str | None = None) -> str:
            res = await fake.slash(admin, "quizadmin add", file=(name, data), locale=locale)
            assert res.ephemeral
            if res.type == 5:  # deferred: the answer replaces "thinking..."
                return (await res.wait_original(done)).content
            return res.content

        # Malformed YAML: the exact place, in a code block.
        text = await upload("broken.yaml", b"id: x\ntitle: [unclosed\n")
        assert text.startswith("⚠️ The quiz file has problems; nothing was changed:\n```\n")
        assert "broken.yaml:3: not valid YAML" in text
        assert text.endswith("```")

        # Schema problems: FILE:LINE: path: message for each.
        bad_schema = QUIZ.replace("    answer: 1\n", "    answer: one\n    colour: red\n")
        text = await upload("team.yaml", bad_schema.encode())
        assert "team.yaml:16: questions[0].answer: input should be a valid integer" in text
        assert "team.yaml:17: questions[0].colour: unknown key 'colour'" in text

        # A YAML tag that would build a Python object is refused, never executed.
        evil = b"id: !!python/object/apply:os.system ['echo hacked']\n"
        text = await upload("evil.yaml", evil)
        assert "evil.yaml:1: not valid YAML: could not determine a constructor" in text

        # Too large: refused from the size Discord reports, before any download.
        big = b"# " + b"x" * MAX_FILE_BYTES + b"\n" + QUIZ.encode()
        res = await fake.slash(admin, "quizadmin add", file=("big.yaml", big))
        assert res.type == 4 and res.ephemeral
        assert res.content == "⚠️ The file is larger than 256 KiB."

        # Not text.
        text = await upload("q.yaml", b"\xff\xfe\x00binary")
        assert text == "⚠️ The file is not UTF-8 text."

        # Ids of shipped quizzes: the quiz id, or a question id.
        text = await upload("dup.yaml", quiz_yaml(quiz_id="gradient-accumulation").encode())
        assert "⚠️ These ids are already used by another quiz: gradient-accumulation" in text
        text = await upload("dup.yaml", quiz_yaml(question_id="ga-01").encode())
        assert text == "⚠️ These ids are already used by another quiz: ga-01. Choose other ids."

        # In Indonesian for an Indonesian client.
        text = await upload("dup.yaml", quiz_yaml(question_id="ga-01").encode(), locale="id")
        assert text == "⚠️ Id berikut sudah dipakai kuis lain: ga-01. Pilih id lain."
        text = await upload("broken.yaml", b"id: [x\n", locale="id")
        assert text.startswith("⚠️ Berkas kuis bermasalah; tidak ada yang diubah:\n```\n")

        assert await stored(bot) == []
        assert sorted(bot.services.bank.quizzes) == shipped
        assert bot.services.bank.quiz("gradient-accumulation").questions[0].id == "ga-01"


async def test_non_admins_are_refused_server_side(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        # Discord would hide the commands, but a client can still send them.
        res = await fake.slash(bob, "quizadmin add", file=("team.yaml", QUIZ.encode()))
        assert res.type == 4 and res.ephemeral
        assert res.content == "⚠️ Only members with the Manage Server permission can do this."
        res = await fake.slash(citra, "quizadmin list")
        assert res.content == "⚠️ Hanya anggota dengan izin Kelola Server yang bisa melakukan ini."
        res = await fake.slash(bob, "quizadmin remove", quiz_id="gradient-accumulation")
        assert res.content.startswith("⚠️ Only members with the Manage Server")
        assert await fake.autocomplete(bob, "quizadmin remove", "quiz_id", "") == []
        assert await stored(bot) == []
        assert bot.services.bank.is_visible("gradient-accumulation", fake.guild.id)


async def test_list_and_remove(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    admin, bob = fake.admin, fake.users_list[0]
    async with start_bot() as bot:
        res = await fake.slash(admin, "quizadmin list")
        listing = res.embeds[0]["description"]
        assert "**Built in**" in listing
        assert "`gradient-accumulation` — Gradient Accumulation Quiz (" in listing
        assert "`mixed-precision` — " in listing
        assert "**This server's (0/25)**\nNone yet" in listing

        await (
            await fake.slash(admin, "quizadmin add", file=("a.yaml", QUIZ.encode()))
        ).wait_original(done)
        second = quiz_yaml("team-extra", "tx-01")
        await (
            await fake.slash(admin, "quizadmin add", file=("b.yaml", second.encode()))
        ).wait_original(done)

        res = await fake.slash(admin, "quizadmin list")
        listing = res.embeds[0]["description"]
        assert "**This server's (2/25)**" in listing
        assert "`team-basics` — Team Basics (1 question(s))" in listing
        assert "`team-extra` — Team Basics (1 question(s))" in listing
        res = await fake.slash(admin, "quizadmin list", locale="id")
        assert "`team-basics` — Dasar Tim (1 soal)" in res.embeds[0]["description"]
        assert "**Bawaan**" in res.embeds[0]["description"]

        choices = await fake.autocomplete(admin, "quizadmin remove", "quiz_id", "team")
        assert [c["value"] for c in choices] == ["team-basics", "team-extra"]
        choices = await fake.autocomplete(admin, "quizadmin remove", "quiz_id", "extra")
        assert [c["value"] for c in choices] == ["team-extra"]

        res = await fake.slash(admin, "quizadmin remove", quiz_id="team-basics")
        assert res.ephemeral
        assert res.content == "🗑️ Removed this server's quiz `team-basics`."
        assert await stored(bot) == [(fake.guild.id, "team-extra")]
        refused = await fake.slash(bob, "quiz start", topic="team-basics")
        assert refused.embeds == [] and "team-basics" in refused.content
        # The question ids are free again.
        assert "tb-01" not in {q.id for q in bot.services.bank.all_questions()}

        # Shipped quizzes are not this server's to remove.
        res = await fake.slash(admin, "quizadmin remove", quiz_id="gradient-accumulation")
        assert res.content == "⚠️ This server has no quiz 'gradient-accumulation'."
        assert bot.services.bank.is_visible("gradient-accumulation", fake.guild.id)
        res = await fake.slash(admin, "quizadmin remove", quiz_id="team-basics", locale="id")
        assert res.content == "⚠️ Server ini tidak punya kuis 'team-basics'."


LINKED_QUIZ = """\
id: team-links
title: {en: Team Links, id: Tautan Tim}
description: {en: Links., id: Tautan.}
questions:
  - id: tl-01
    prompt:
      en: 'Read [the official docs](https://evil.example/phish) first. Which is right?'
      id: 'Baca [dokumen resmi](https://evil.example/phish) dulu. Mana yang benar?'
    choices: {en: [one, two, three], id: [satu, dua, tiga]}
    answer: 1
    explanation:
      en: 'See [PyTorch](<https://evil.example/x> "PyTorch") for why.'
      id: 'Lihat [PyTorch](<https://evil.example/x> "PyTorch") untuk alasannya.'
    references:
      - {title: PyTorch AMP docs, url: 'https://evil.example/amp'}
"""


async def test_masked_links_in_an_upload_show_their_address_in_quizzes_posts_and_reveals(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot() as bot:
        res = await fake.slash(fake.admin, "quizadmin add", file=("l.yaml", LINKED_QUIZ.encode()))
        assert (await res.wait_original(done)).content.startswith("✅")

        quiz = await fake.slash(fake.users_list[0], "quiz start", topic="team-links")
        shown = str(quiz.embeds[0])
        assert "the official docs (https://evil.example/phish)" in shown
        assert "](" not in shown
        first = quiz.message.components[0]["components"][0]["custom_id"]  # type: ignore[union-attr]
        answered = await fake.click(quiz.message, first, fake.users_list[0])  # type: ignore[arg-type]
        shown = str(answered.embeds[0])
        assert "See PyTorch (https://evil.example/x) for why." in shown
        # A reference stays a link, but its title names where it leads.
        assert "[PyTorch AMP docs (evil.example)](https://evil.example/amp)" in shown

        _, _, post, _ = await post_todays_question(fake, bot, topic="team-links")
        daily = next(m for m in fake.messages(fake.channel2) if m.id == post.message_id)
        assert "the official docs (https://evil.example/phish)" in daily.text()
        assert "](https://evil" not in daily.text()

        revealed = await fake.slash(fake.admin, "daily reveal")
        await revealed.wait_followup()
        reveal = await fake.wait_for_message(
            lambda m: m.message_reference is not None, WAIT, channel=fake.channel2
        )
        text = reveal.text()
        assert "See PyTorch (https://evil.example/x) for why." in text
        assert "](https://evil" not in text
