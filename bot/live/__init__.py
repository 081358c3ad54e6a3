"""Live rounds, Discord-free: `LiveRounds` (what members and hosts do, the batched answer
writer) and `LiveDriver` (the rounds this process drives; reveals and scoreboards
through the outbox). The live cog implements `LivePublisher` with discord.py."""
