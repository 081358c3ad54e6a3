"""The persistent buttons' custom ids: one template per action is the only parser of an id.
Each id a server may hold today (the exact formats, written out) is taken by exactly one
template (discord.py runs every template that matches: two would answer one press
twice), and the button rebuilt from its groups carries the same id; the views build these
formats; a forged or malformed id is taken by none (and then answered by
`UnclaimedButtons`, tests/discord/test_e2e_buttons.py)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from bot.live.rules import MAX_QUESTIONS
from cogs.admin.reports import HideButton, ReportsPageButton, UnhideButton
from cogs.admin.suggestions import ApproveButton, EditButton, RejectButton, SkipSuggestionButton
from cogs.daily.buttons import DailyAnswerButton, answer_view
from cogs.live.buttons import (
    LiveAnswerButton,
    LiveJoinButton,
    LiveResultButton,
    LiveSkipButton,
    LiveStartButton,
    answer_and_skip_view,
    lobby_view,
    scoreboard_view,
)
from cogs.quiz.buttons import AnswerButton, NextButton, choice_buttons_view
from cogs.quiz.reminders import ReviewNowButton
from cogs.stats import PageButton, leaderboard_view
from cogs.ui.buttons import PersistentButton, ShowDemoButton
from cogs.ui.report import ReportButton

ALL: list[type[PersistentButton]] = [
    LiveJoinButton,
    LiveStartButton,
    LiveResultButton,
    LiveSkipButton,
    LiveAnswerButton,
    AnswerButton,
    NextButton,
    ReviewNowButton,
    DailyAnswerButton,
    PageButton,
    ShowDemoButton,
    ReportButton,
    ApproveButton,
    EditButton,
    RejectButton,
    SkipSuggestionButton,
    ReportsPageButton,
    HideButton,
    UnhideButton,
]

SID = "AbC_-12xyz"

# (an id as posted today, the one class that takes it, what the press reads from it)
TODAY: list[tuple[str, type[PersistentButton], dict[str, Any]]] = [
    ("lv:7:j", LiveJoinButton, {"round_id": 7}),
    ("lv:7:s", LiveStartButton, {"round_id": 7}),
    ("lv:123456789:r", LiveResultButton, {"round_id": 123456789}),
    ("lv:7:30:k", LiveSkipButton, {"round_id": 7, "number": 30}),
    ("lv:7:1:0", LiveAnswerButton, {"round_id": 7, "number": 1, "position": 0}),
    ("lv:7:12:5", LiveAnswerButton, {"round_id": 7, "number": 12, "position": 5}),
    (f"qz:{SID}:3:a:2", AnswerButton, {"session_id": SID, "number": 3, "position": 2}),
    (f"qz:{SID}:n", NextButton, {"session_id": SID}),
    ("remind:review", ReviewNowButton, {}),
    ("dq:42:3", DailyAnswerButton, {"post_id": 42, "position": 3}),
    ("lb:accuracy:2:id", PageButton, {"by": "accuracy", "page": 2, "locale": "id"}),
    ("demo:loss-scaling", ShowDemoButton, {"name": "loss-scaling"}),
    ("rp:mp-bf16-range", ReportButton, {"question_id": "mp-bf16-range"}),
    ("sg:a:12", ApproveButton, {"suggestion_id": 12}),
    ("sg:e:12", EditButton, {"suggestion_id": 12}),
    ("sg:r:12", RejectButton, {"suggestion_id": 12}),
    ("sg:s:12", SkipSuggestionButton, {"suggestion_id": 12}),
    ("rq:p:2", ReportsPageButton, {"page": 2}),
    ("rq:h:1:mp-x", HideButton, {"page": 1, "question_id": "mp-x"}),
    ("rq:u:3:mp-x", UnhideButton, {"page": 3, "question_id": "mp-x"}),
]

FORGED = [
    "",
    "lv:",
    "lv:garbage",
    "lv:0:j",  # no round 0
    "lv:07:j",  # never written with a leading zero
    "lv:-7:j",
    "lv:7:q",
    "lv:7:j:extra",
    "lv:7:0:1",  # questions count from 1
    f"lv:7:{MAX_QUESTIONS + 1}:1",
    "lv:7:1:6",  # six choices at most: A-F
    "lv:7:1:-1",
    "lv:7:1",
    "lv:7:1:k:2",
    "lv:1234567890123456789:j",  # past a 64-bit id
    "dq:",
    "dq:x",
    "dq:0:0",
    "dq:1",
    "dq:1:6",
    "dq:1:0:0",
    "dq:\u0661:0",  # an Arabic-Indic one: a digit to \d, never one of ours
    "qz:abc:1:a:0",  # a session id is 4-32 characters
    f"qz:{SID}:1:a:6",
    f"qz:{SID}:n:x",
    "lb:streak:1:fr",
    "demo:",
    "sg:x:1",
    "rq:h:1",  # hiding names its question
    "rq:p:2:mp-x",
    "zz:what",
]


def takers(custom_id: str) -> list[type[PersistentButton]]:
    return [button for button in ALL if button.pattern.fullmatch(custom_id)]


@pytest.mark.parametrize(("custom_id", "button", "fields"), TODAY, ids=[c for c, _, _ in TODAY])
async def test_each_id_posted_today_is_taken_by_one_template_and_keeps_its_form(
    custom_id: str, button: type[PersistentButton], fields: dict[str, Any]
) -> None:
    assert takers(custom_id) == [button]
    match = button.pattern.fullmatch(custom_id)
    assert match is not None
    pressed = await button.from_custom_id(cast(Any, None), cast(Any, None), match)
    assert {name: getattr(pressed, name) for name in fields} == fields
    assert pressed.custom_id == custom_id


@pytest.mark.parametrize("custom_id", FORGED)
def test_a_forged_or_malformed_id_is_taken_by_no_template(custom_id: str) -> None:
    assert takers(custom_id) == []


def test_a_live_question_number_is_one_to_the_most_a_round_has() -> None:
    taken = [n for n in range(200) if takers(f"lv:7:{n}:0") or takers(f"lv:7:{n}:k")]
    assert taken == list(range(1, MAX_QUESTIONS + 1))


def custom_ids(view: Any) -> list[str]:
    return [item.custom_id for item in view.children]


async def test_the_views_build_the_formats_posted_today() -> None:
    assert custom_ids(lobby_view(7, "en", started=False)) == ["lv:7:j", "lv:7:s"]
    assert custom_ids(answer_and_skip_view(7, 12, 6, "en", closed=False)) == [
        *(f"lv:7:12:{position}" for position in range(6)),
        "lv:7:12:k",
    ]
    assert custom_ids(scoreboard_view(7, "en")) == ["lv:7:r"]
    assert custom_ids(choice_buttons_view(SID, 3, 4)) == [f"qz:{SID}:3:a:{p}" for p in range(4)]
    assert custom_ids(answer_view(42, 4)) == [f"dq:42:{p}" for p in range(4)]
    assert custom_ids(leaderboard_view("streak", 1, 3, "en")) == [
        "lb:streak:0:en",
        "lb:streak:2:en",
    ]
