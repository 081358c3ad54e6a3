"""A server's daily-question history with known class analytics: posts and answers written
straight into the database, then settled (oldest first) through the bot's own settle, which
keeps the tallies `/daily stats` reads (shared by the analytics, `/daily stats` and
`quiztutor stats` tests).

`seed_class(db, bank, guild, today, (q1, q2, q3))`, with w1 < w2 the wrong choices:

- q1, 14 days ago (settled): u1 right, u2 w1, u3 w1, u4 w2
- q2, 7 days ago (settled): u1 right, u2 right, u3 wrong
- q1 again, yesterday (settled): u5 w1
- q3, today (open): u1 wrong; counts for participation only
- q2, 70 days ago (settled, outside an 8-week window): u6 right
- another guild: q1 (settled), u1 wrong; counted nowhere

so q1 is 1/5 right with w1 chosen 3 times (2 posts), q2 3/4; q3 has no settled post.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from bot.daily.settle_store import grade_post, settle_post
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.quizbank import QuizBank

OTHER_GUILD = 424_242
U1, U2, U3, U4, U5, U6 = (700_000_000_000_000_000 + k for k in range(1, 7))


def wrong_choices(bank: QuizBank, question_id: str) -> list[int]:
    question = bank.question(question_id)
    return [i for i in range(question.n_choices) if i != question.answer]


async def seed_class(
    db: Database, bank: QuizBank, guild_id: int, today: date, questions: tuple[str, str, str]
) -> None:
    q1, q2, q3 = questions
    w1, w2 = wrong_choices(bank, q1)[:2]

    def right(q: str) -> int:
        return bank.question(q).answer

    plan: list[tuple[int, str, int, bool, list[tuple[int, int]]]] = [
        (guild_id, q1, 14, True, [(U1, right(q1)), (U2, w1), (U3, w1), (U4, w2)]),
        (
            guild_id,
            q2,
            7,
            True,
            [(U1, right(q2)), (U2, right(q2)), (U3, wrong_choices(bank, q2)[0])],
        ),
        (guild_id, q1, 1, True, [(U5, w1)]),
        (guild_id, q3, 0, False, [(U1, wrong_choices(bank, q3)[0])]),
        (guild_id, q2, 70, True, [(U6, right(q2))]),
        (OTHER_GUILD, q1, 3, True, [(U1, w1)]),
    ]
    to_settle: list[tuple[date, int, datetime]] = []
    async with db.session() as session:
        for guild, question_id, days_ago, settled, answers in plan:
            day = today - timedelta(days=days_ago)
            at = datetime.combine(day, time(9), UTC)
            post = DailyPost(
                guild_id=guild,
                day=day,
                question_id=question_id,
                channel_id=1,
                message_id=None,
                claimed_at=at,
                posted_at=at,
                reveal_at=at + timedelta(hours=20),
                settled=False,
            )
            session.add(post)
            await session.flush()
            assert post.id is not None
            if settled:
                to_settle.append((day, post.id, post.reveal_at))
            for user_id, choice in answers:
                session.add(
                    DailyAnswer(
                        post_id=post.id,
                        user_id=user_id,
                        choice=choice,
                        correct=choice == right(question_id),
                        answered_at=at + timedelta(minutes=5),
                    )
                )
        await session.commit()

    for _, post_id, reveal in sorted(to_settle):
        await settle_seeded(db, bank, post_id, reveal)


async def settle_seeded(db: Database, bank: QuizBank, post_id: int, when: datetime) -> None:
    """Settle a post written straight into the database, through the bot's own settle."""

    def grading(post: DailyPost) -> tuple[int, int]:
        question = bank.question(post.question_id)  # written posts: choices as in the file
        return question.answer, question.n_choices

    await settle_post(db, post_id, when, grading)
    await grade_post(db, post_id)
