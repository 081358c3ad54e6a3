"""Tests of the Discord stand-in itself, driven through an unmodified discord.py bot."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.discord.internals import normalize_api_base, redirect_discord
from testkit.standin import FakeDiscord

RunBot = Callable[..., Any]


class RevealView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Reveal", custom_id="reveal")
    async def reveal(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="Answer: 42", view=self)


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    comment: discord.ui.TextInput = discord.ui.TextInput(label="Comment", custom_id="comment")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"thanks: {self.comment.value}", ephemeral=True)


quiz = app_commands.Group(name="quiz", description="Quizzes")


@quiz.command(name="start", description="Start a quiz")
@app_commands.describe(topic="Topic", questions="How many questions")
@app_commands.choices(
    topic=[
        app_commands.Choice(name="Mixed precision", value="mixed-precision"),
        app_commands.Choice(name="Accumulation", value="accumulation"),
    ]
)
async def quiz_start(
    interaction: discord.Interaction,
    topic: app_commands.Choice[str],
    questions: app_commands.Range[int, 1, 10],
    private: bool = False,
) -> None:
    embed = discord.Embed(title=f"Quiz: {topic.value}", description=f"{questions} questions")
    embed.set_footer(text=f"locale={interaction.locale.value}")
    await interaction.response.send_message(embed=embed, view=RevealView(), ephemeral=private)


@quiz.command(name="report", description="Deferred report with a file")
async def quiz_report(interaction: discord.Interaction) -> None:
    await interaction.response.defer(thinking=True)
    report = discord.File(io.BytesIO(b"score,1\n"), filename="report.csv")
    await interaction.followup.send("your report", file=report)
    await interaction.edit_original_response(content="report ready")


@quiz.command(name="feedback", description="Opens a modal")
async def quiz_feedback(interaction: discord.Interaction) -> None:
    await interaction.response.send_modal(FeedbackModal())


@quiz.command(name="search", description="Autocompleted search")
async def quiz_search(interaction: discord.Interaction, term: str) -> None:
    await interaction.response.send_message(f"searching {term}")


@quiz_search.autocomplete("term")
async def quiz_search_term(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    topics = ["loss scaling", "master weights", "mixed precision"]
    return [app_commands.Choice(name=t, value=t) for t in topics if current in t]


class HarnessBot(commands.AutoShardedBot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.guild_id = guild_id
        self.reactions: asyncio.Queue[tuple[str, int, str, str | None]] = asyncio.Queue()

    async def setup_hook(self) -> None:
        guild = discord.Object(self.guild_id)
        self.tree.add_command(quiz, guild=guild)
        await self.tree.sync(guild=guild)

    async def on_raw_reaction_add(self, event: discord.RawReactionActionEvent) -> None:
        name = event.member.name if event.member else None
        await self.reactions.put(("add", event.user_id, str(event.emoji), name))

    async def on_raw_reaction_remove(self, event: discord.RawReactionActionEvent) -> None:
        await self.reactions.put(("remove", event.user_id, str(event.emoji), None))


async def next_reaction(bot: HarnessBot) -> tuple[str, int, str, str | None]:
    return await asyncio.wait_for(bot.reactions.get(), 2)


async def test_slash_command_round_trip(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)):
        [registered] = fake.registered_commands(fake.guild.id)
        assert registered["name"] == "quiz"
        assert {o["name"] for o in registered["options"]} == {
            "start",
            "report",
            "feedback",
            "search",
        }

        citra = fake.users_list[1]
        res = await fake.slash(citra, "quiz start", topic="mixed-precision", questions=3)
        assert res.type == 4 and not res.ephemeral
        assert res.embeds[0]["title"] == "Quiz: mixed-precision"
        assert "3 questions" in res.text and "locale=id" in res.text
        assert res.message is not None and res.message.custom_ids() == ["reveal"]
        assert res.first_response_s < 1.0
        assert fake.messages(fake.channel)[-1] is res.message

        private = await fake.slash(
            citra, "quiz start", topic="accumulation", questions=1, private=True
        )
        assert private.ephemeral and private.message not in fake.messages(fake.channel)

        with pytest.raises(ValueError, match="must be one of"):
            await fake.slash(citra, "quiz start", topic="nope", questions=1)
        with pytest.raises(LookupError, match="not registered"):
            await fake.slash(citra, "nosuch")


async def test_deferred_reply_with_followup_file(
    discord_fake: FakeDiscord, run_bot: RunBot
) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)):
        res = await fake.slash(fake.admin, "quiz report")
        assert res.type == 5
        followup = await res.wait_followup(lambda m: bool(m.attachments))
        [attachment] = followup.attachments
        assert (attachment.filename, attachment.data) == ("report.csv", b"score,1\n")
        original = await res.wait_original(lambda m: m.content == "report ready")
        assert not original.loading
        final = await res.wait_final(lambda m: "report" in m.content)
        assert final in (original, followup)


async def test_button_click_updates_message(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)):
        res = await fake.slash(fake.users_list[0], "quiz start", topic="accumulation", questions=2)
        assert res.message is not None
        clicked = await fake.click(res.message, "reveal", fake.users_list[2])
        assert clicked.type == 7
        stored = fake.message(res.message.id)
        assert stored.content == "Answer: 42" and stored.edits == 1
        with pytest.raises(AssertionError, match="disabled"):
            await fake.click(stored, "reveal", fake.users_list[2])


async def test_modal_round_trip(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)):
        shown = await fake.slash(fake.users_list[0], "quiz feedback")
        assert shown.type == 9 and shown.modal is not None
        submitted = await fake.submit_modal(shown, {"comment": "great"})
        assert submitted.type == 4 and submitted.ephemeral and submitted.content == "thanks: great"


async def test_autocomplete_choices(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)):
        choices = await fake.autocomplete(fake.users_list[0], "quiz search", "term", "ma")
        assert [c["value"] for c in choices] == ["master weights"]


async def test_per_channel_message_limit(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    fake.channel_rate_limit = (2, 0.1)  # 2 messages per 0.1 s per channel, else 429
    async with run_bot(HarnessBot(fake.guild.id)) as bot:
        channel = bot.get_channel(fake.channel.id)
        assert isinstance(channel, discord.TextChannel)
        for i in range(3):
            await channel.send(f"tick {i}")
        assert [m.content for m in fake.messages(fake.channel)] == ["tick 0", "tick 1", "tick 2"]
        assert len(fake.rate_limited) == 1


async def test_reactions_dispatched_and_listed(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    bob, citra = fake.users_list[:2]
    async with run_bot(HarnessBot(fake.guild.id)) as bot:
        channel = bot.get_channel(fake.channel.id)
        assert isinstance(channel, discord.TextChannel)
        sent = await channel.send("react here")
        await sent.add_reaction("👍")
        assert await next_reaction(bot) == ("add", fake.bot_user.id, "👍", "quiztutor")

        message = fake.message(sent.id)
        await fake.react(message, bob, "👍")
        assert await next_reaction(bot) == ("add", bob.id, "👍", "bob")
        fake.react_silently(message, citra, "👍")  # made while "offline": no event

        fetched = await channel.fetch_message(sent.id)
        [reaction] = fetched.reactions
        assert reaction.count == 3 and reaction.me
        # Discord pages by ascending user id (discord.py yields each page reversed).
        users = [u.id async for u in reaction.users(limit=2)]
        assert sorted(users) == sorted([fake.bot_user.id, bob.id, citra.id])[:2]
        assert {u.id async for u in reaction.users()} == {fake.bot_user.id, bob.id, citra.id}

        await fake.unreact(message, bob, "👍")
        assert await next_reaction(bot) == ("remove", bob.id, "👍", None)
        assert message.reactors("👍") == [fake.bot_user.id, citra.id]


async def test_gateway_drop_resumes_and_replays_once(
    discord_fake: FakeDiscord, run_bot: RunBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with run_bot(HarnessBot(fake.guild.id)) as bot:
        message = fake.store_message(fake.channel, bob, {"content": "old"})
        await fake.drop_gateway()
        await fake.react(message, bob, "🔥")  # dispatched while the bot is away
        await fake.wait_connected()
        assert fake.gateway.resumes == 1 and fake.gateway.identifies == 1
        assert await next_reaction(bot) == ("add", bob.id, "🔥", "bob")
        # A later event arrives next: the buffered one was not replayed twice.
        await fake.react(message, bob, "✅")
        assert await next_reaction(bot) == ("add", bob.id, "✅", "bob")

        # A session that cannot resume gets INVALID_SESSION and identifies again.
        await fake.drop_gateway(resumable=False)
        await fake.wait_connected()
        assert fake.gateway.identifies == 2
        res = await fake.slash(bob, "quiz start", topic="accumulation", questions=1)
        assert res.type == 4


async def test_rate_limits_are_retried(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)) as bot:
        limited = fake.rate_limit("POST", r"^/channels/\d+/messages$", times=1)
        callback = fake.rate_limit("POST", r"/callback$", times=1)
        channel = bot.get_channel(fake.channel.id)
        assert isinstance(channel, discord.TextChannel)
        await channel.send("after a 429")
        assert limited.hits == 1
        assert len(fake.calls_to("POST", r"^/channels/\d+/messages$")) == 2
        assert fake.messages(fake.channel)[-1].content == "after a 429"

        res = await fake.slash(fake.admin, "quiz start", topic="accumulation", questions=1)
        assert callback.hits == 1 and res.type == 4


async def test_injected_failures_reach_the_bot(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)) as bot:
        fake.fail("POST", r"/messages$", status=403, code=50013, times=1)
        channel = bot.get_channel(fake.channel.id)
        assert isinstance(channel, discord.TextChannel)
        with pytest.raises(discord.Forbidden) as info:
            await channel.send("nope")
        assert info.value.code == 50013
        await channel.send("works again")
        with pytest.raises(discord.NotFound):
            await bot.http.get_message(fake.channel.id, 1)  # Unknown Message


async def test_unknown_routes_are_recorded(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)) as bot:
        with pytest.raises(discord.NotFound) as info:
            await bot.http.request(discord.http.Route("GET", "/bogus/{x}", x=1))
        assert info.value.text == "404: Not Found"
    assert [(c.method, c.path) for c in fake.unknown_routes] == [("GET", "/bogus/1")]
    fake.unknown_routes.clear()  # expected here; otherwise the fixture fails the test


async def test_state_survives_bot_restart(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    async with run_bot(HarnessBot(fake.guild.id)) as bot:
        channel = bot.get_channel(fake.channel.id)
        assert isinstance(channel, discord.TextChannel)
        first = await channel.send("before restart")
    async with run_bot(HarnessBot(fake.guild.id)) as bot2:
        channel = bot2.get_channel(fake.channel.id)
        assert isinstance(channel, discord.TextChannel)
        history = [m.content async for m in channel.history(limit=10, after=first.created_at)]
        assert history == []
        history = [m.id async for m in channel.history(limit=10)]
        assert history == [first.id]
        assert len(fake.registered_commands(fake.guild.id)) == 1
    assert fake.gateway.identifies == 2


async def test_bot_in_subprocess(discord_fake: FakeDiscord) -> None:
    script = textwrap.dedent(
        """
        import os, discord
        from bot.discord.internals import redirect_discord

        redirect_discord(os.environ["DISCORD_API_BASE"], os.environ["DISCORD_GATEWAY_URL"])
        client = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)

        @client.event
        async def on_ready():
            await client.get_channel(int(os.environ["CHANNEL_ID"])).send("hello from a subprocess")
            await client.close()

        client.run(os.environ["DISCORD_TOKEN"], log_handler=None)
        """
    )
    env = {**os.environ, **discord_fake.env(), "CHANNEL_ID": str(discord_fake.channel.id)}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", script, env=env)
    message = await discord_fake.wait_for_message(
        lambda m: m.content == "hello from a subprocess", timeout=20
    )
    assert message.author is discord_fake.bot_user
    assert await asyncio.wait_for(proc.wait(), 20) == 0


def test_redirect_restores_and_normalizes() -> None:
    before = discord.http.Route.BASE
    restore = redirect_discord("http://proxy:8080/", "ws://proxy:8080/gw")
    try:
        assert discord.http.Route.BASE == "http://proxy:8080/api/v10"
        assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://proxy:8080/gw"
    finally:
        restore()
    assert discord.http.Route.BASE == before
    assert normalize_api_base("http://h/api/v10") == "http://h/api/v10"
    assert normalize_api_base("http://h/api") == "http://h/api/v10"
