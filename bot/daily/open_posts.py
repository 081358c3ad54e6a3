"""This process's view of the daily posts: the open ones by message id (a reaction on any
other message costs no query), the ones closed here, and the channels posts go to."""

from __future__ import annotations

from bot.daily.questions import instance_grading
from bot.daily.types import OpenPost
from bot.db.tables.daily import DailyPost

# A closed post's id is kept this long after its settle, to refuse answers still in flight.
MAX_CLOSED_REMEMBERED = 4096


def open_post(post: DailyPost, message_id: int | None = None) -> OpenPost:
    """The post as the answer paths know it; `message_id`: its message when the id is not
    stored yet (a press on the message in the moment between the send and the record)."""
    message_id = post.message_id if post.message_id is not None else message_id
    assert post.id is not None and message_id is not None
    return OpenPost(
        post.id,
        post.guild_id,
        post.day,
        post.question_id,
        post.channel_id,
        message_id,
        post.reveal_at,
        post.answer_mode,
        tuple(post.choice_order) if post.choice_order is not None else None,
        instance_grading(post.instance),
    )


class OpenPosts:
    def __init__(self) -> None:
        self._by_message: dict[int, OpenPost] = {}
        # Posts being settled or settled by this process: answers to them are refused.
        self._closed: dict[int, None] = {}
        self.channels: set[int] = set()

    def reset(self, posts: list[DailyPost], channels: set[int]) -> None:
        self._by_message = {p.message_id: open_post(p) for p in posts if p.message_id is not None}
        self.channels = channels | {p.channel_id for p in posts}

    def get(self, message_id: int) -> OpenPost | None:
        return self._by_message.get(message_id)

    def add(self, post: DailyPost) -> OpenPost:
        known = self._by_message[post.message_id or 0] = open_post(post)
        self.channels.add(post.channel_id)
        return known

    def forget(self, post: DailyPost) -> None:
        if post.message_id is not None:
            self._by_message.pop(post.message_id, None)

    def close(self, post_id: int) -> None:
        """No more answers for this post in this process (bounded: old ids are dropped)."""
        self._closed[post_id] = None
        if len(self._closed) > MAX_CLOSED_REMEMBERED:
            del self._closed[next(iter(self._closed))]

    def is_closed(self, post_id: int) -> bool:
        return post_id in self._closed
