"""The daily question's services, Discord-free: one object per job, joined in `DailyService`.

* `configs`: a server's settings (`/daily setup|off|status`) and the schedule they imply.
* `posts`: the post lifecycle; the claim (UNIQUE(guild_id, day)) decides who posts, also
  across bot processes; the choice of the day's question (`bot.daily.choice_rules`).
* `answers`: grading reactions (live, and read back after downtime).
* `open_posts`: this process's cache of open posts (a reaction elsewhere costs no query).
* `settling`: closing a day (streaks, review cards, the reveal's summary, the reveal owed).
* `analytics`: the class analytics up to the server's own today (`/daily stats`).
* `service`: `DailyService`, the parts built once over the shared state.
* `reactions`: the live path of answer reactions and reading them back.
* `jobs`: `DailyJobs`, the scheduler driver (when to post, reveal, catch up, recover).
* `announcements`: what the outbox sends (answer reactions, reveals).
* `publisher`: what the driver needs from Discord (implemented by the daily cog).

One post: `posts.claim` -> the publisher posts -> `posts.set_message` (answer reactions
owed) -> reactions are graded -> at reveal time `settling.settle` (reveal owed) -> the
outbox sends. SQL lives in the `*_store` modules (callers that need only a query call
them directly), the pure rules in the `*_rules` modules.
"""
