"""The stand-in's gateway sends frames as Discord does (issue 27.3): with
`compress=zlib-stream` every frame is a BINARY piece of one zlib stream per connection,
ending in a sync flush; without it, TEXT. The real discord.py client asks for the stream."""

from __future__ import annotations

import zlib

import aiohttp
import orjson

from bot.discord.client import QuizTutorBot
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot


async def test_frames_are_pieces_of_one_zlib_stream_when_asked(discord_fake: FakeDiscord) -> None:
    url = discord_fake.gateway_url
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(f"{url}?v=10&encoding=json&compress=zlib-stream") as ws:
            inflate = zlib.decompressobj()
            hello = await ws.receive()
            assert hello.type is aiohttp.WSMsgType.BINARY
            assert hello.data.endswith(b"\x00\x00\xff\xff")
            assert orjson.loads(inflate.decompress(hello.data))["op"] == 10
            for _ in range(2):  # the same stream goes on: no header, inflated with context
                await ws.send_str('{"op": 1, "d": null}')
                ack = await ws.receive()
                assert ack.type is aiohttp.WSMsgType.BINARY
                assert not ack.data.startswith(b"\x78")  # only the first piece has the header
                assert orjson.loads(inflate.decompress(ack.data)) == {"op": 11}
        async with http.ws_connect(f"{url}?v=10&encoding=json") as ws:
            hello = await ws.receive()
            assert hello.type is aiohttp.WSMsgType.TEXT
            assert orjson.loads(hello.data)["op"] == 10


async def test_the_real_client_gets_the_zlib_stream(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    async with start_bot() as bot:
        assert isinstance(bot, QuizTutorBot)
        sessions = discord_fake.gateway.connected
        assert sessions and all(s.wire is not None for s in sessions)
        wire = sessions[0].wire
        assert wire is not None and wire.compressed and wire.frames >= 2  # READY, GUILD_CREATE
