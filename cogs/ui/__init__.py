"""The one Discord presentation layer.

* `style`: colours, limits, clipping, links and times.
* `embeds`: the quiz, streak, leaderboard and demo embeds; `daily_embeds`: the daily ones.
* `replies`: private replies, the one error handler and the command tree that uses it.
* `buttons`: every persistent button (registered once in `setup_hook`) and what a press does.

Feature cogs import from here and from `cogs.common`, never from each other.
"""
