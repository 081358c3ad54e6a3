"""An upload cannot freeze the bot: while one server's upload is read (in a child process),
a member's command in another server is answered within 1 s; a server reads one upload at
a time, and waits its cooldown between two."""

from __future__ import annotations

import time

from testkit.standin.models import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.guilds import other_guild

# A Moodle export written in its HTML editor, near the 256 KiB an upload may hold: reading
# it (HTML to markdown, in pure Python) takes seconds.
QUESTION = (
    '::q{n}::[html]<p dir="ltr" style="text-align: left;">Which <b>format</b> keeps '
    "<i>fp32's</i> exponent range? <br>Think of <code>torch.bfloat16</code>.</p>{{\n"
    "  =[html]<p>bf16</p>#[html]<p>Right: <b>8</b> exponent bits.</p>\n"
    "  ~[html]<p>fp16</p>#[html]<p>Only <b>5</b> exponent bits.</p>\n"
    "  ~[html]<p>fp8 e4m3</p>#[html]<p>Only <b>4</b> exponent bits.</p>\n"
    "}}\n\n"
)


def heavy_gift() -> bytes:
    parts: list[str] = []
    size = 0
    n = 0
    while size < 250_000:
        n += 1
        part = QUESTION.format(n=n)
        parts.append(part)
        size += len(part.encode())
    return "".join(parts).encode()


def done(message: FakeMessage) -> bool:
    return bool(message.content)


async def test_an_upload_being_read_freezes_no_other_server(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot(upload_cooldown_s=60.0) as bot:
        other = await other_guild(fake, bot)
        eve = next(m.user for m in other.members.values() if m.user.username == "eve")
        upload = await fake.slash(fake.admin, "quizadmin add", file=("big.gift", heavy_gift()))
        assert upload.type == 5  # deferred: it is being read

        # A second upload of the same server while the first is read: refused at once.
        again = await fake.slash(fake.admin, "quizadmin add", file=("small.gift", b"x"))
        assert again.type == 4 and "being read" in again.content

        # Meanwhile, another server's member is answered within 1 s.
        start = time.monotonic()
        quiz = await fake.slash(eve, "quiz start", guild=other, topic="mixed-precision")
        answered_in = time.monotonic() - start
        still_reading = upload.message is not None and upload.message.loading
        assert quiz.message is not None and quiz.embeds, quiz.content
        assert answered_in < 1.0, answered_in
        assert still_reading, (
            "the upload was read before the other command: the test proves nothing"
        )

        reply = (await upload.wait_original(done, timeout=60)).content
        assert "Imported" in reply or "limit" in reply, reply  # read, and said so
        # The server's next upload waits for its cooldown.
        later = await fake.slash(fake.admin, "quizadmin add", file=("small.gift", b"x"))
        assert later.type == 4 and "try again in" in later.content
