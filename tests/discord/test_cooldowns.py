"""Per-member cooldowns (`bot.common.cooldowns`): one use per period, bounded memory."""

from __future__ import annotations

from bot.common.cooldowns import Cooldown


class Ticks:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_member_waits_out_the_period_and_others_do_not() -> None:
    clock = Ticks()
    cooldown = Cooldown(30, clock=clock)
    assert cooldown.use(1) == 0
    clock.now += 10
    assert cooldown.use(1) == 20  # 20 s left
    assert cooldown.use(2) == 0  # another member is not held back
    clock.now += 20
    assert cooldown.use(1) == 0  # the period is over


def test_reset_gives_the_use_back() -> None:
    cooldown = Cooldown(30, clock=Ticks())
    cooldown.use(1)
    cooldown.reset(1)
    assert cooldown.use(1) == 0


def test_memory_is_bounded_and_expired_members_are_forgotten() -> None:
    clock = Ticks()
    cooldown = Cooldown(30, max_keys=100, clock=clock)
    for member in range(1000):
        cooldown.use(member)
    assert len(cooldown) == 100  # the oldest went first
    clock.now += 31
    assert len(cooldown) == 0  # nothing is remembered past its period


def test_a_zero_cooldown_never_holds_anyone_back() -> None:
    cooldown = Cooldown(0, clock=Ticks())
    assert cooldown.use(1) == 0
    assert cooldown.use(1) == 0
