"""The outbox's look-back on Discord: is the message an attempt of unknown outcome may
have sent already in the channel?

Discord does not return a message's nonce when the channel is read, so the copy is
recognised by what it visibly is: a message of the bot that replies to the given
message (`message_reference`), sent after the attempt began. A reveal is the bot's
only reply to a daily post (a live round's reveal the only reply to its round), so no
extra marker has to be shown to members. The read is bounded: one page of at most
`LOOKBACK_LIMIT` messages, oldest first from the attempt on, where the copy comes first.
"""

from __future__ import annotations

import logging
from datetime import datetime

import discord

log = logging.getLogger("quiztutor.outbox")

LOOKBACK_LIMIT = 100


async def find_own_reply(
    client: discord.Client, channel_id: int, guild_id: int, reply_to: int, since: datetime
) -> int | None:
    """The id of the bot's reply to `reply_to` sent after `since` in the channel, or None."""
    me = client.user
    if me is None:
        raise RuntimeError("not logged in: cannot tell the bot's own messages")
    channel = client.get_partial_messageable(channel_id, guild_id=guild_id)
    try:
        async for message in channel.history(limit=LOOKBACK_LIMIT, after=since, oldest_first=True):
            reference = message.reference
            if (
                message.author.id == me.id
                and reference is not None
                and reference.message_id == reply_to
            ):
                return message.id
    except discord.NotFound:
        return None  # the channel is gone: the send will be refused for good
    except discord.Forbidden:
        # Without Read Message History the copy cannot be looked for; send again.
        log.warning(
            "cannot read the channel to look for an earlier copy (Read Message History)",
            extra={"guild_id": guild_id, "channel_id": channel_id},
        )
        return None
    return None
