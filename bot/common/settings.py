"""Settings from the environment (and an optional `.env` file), validated by pydantic."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.common.errors import SetupError

# Live rounds running at once in one server, unless LIVE_MAX_ROUNDS_PER_SERVER says otherwise.
DEFAULT_MAX_ROUNDS = 3


def token_shape_problem(token: str) -> str | None:
    """Why `token` cannot be a bot token, judged from its shape alone (None: it may be).

    A bot token is three base64 parts separated by dots; anything else is a paste error
    (a client secret, the application id, a quote or a line break pasted with it)."""
    if token.count(".") != 2 or any(c.isspace() for c in token) or "" in token.split("."):
        return "DISCORD_TOKEN does not look like a bot token"
    return None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(
        default=None, description="The bot token from the Discord developer portal."
    )
    database_url: str = Field(
        default="sqlite+aiosqlite:///data/quiztutor.db",
        description="sqlite+aiosqlite:///FILE or postgresql+asyncpg://USER:PASSWORD@HOST/DB",
    )
    # Connection pool of a networked database (PostgreSQL); SQLite ignores them.
    database_pool_size: int = Field(default=5, ge=1, le=100)
    database_max_overflow: int = Field(default=5, ge=0, le=100)
    database_pool_timeout_s: float = Field(default=30.0, gt=0, le=600)
    database_connect_timeout_s: float = Field(default=10.0, gt=0, le=600)
    database_pool_pre_ping: bool = Field(
        default=True, description="Test a pooled connection before use (survives DB restarts)."
    )
    log_level: str = Field(default="INFO")
    log_format: str = Field(
        default="text", description="'text' or 'json' (one JSON object per line)."
    )
    dev_guild_id: int | None = Field(
        default=None, description="`quiztutor sync` registers here instantly when set."
    )
    discord_api_base: str | None = Field(
        default=None, description="An HTTP proxy or stand-in for Discord's API (scaling out)."
    )
    discord_gateway_url: str | None = Field(default=None)
    quiz_dirs: list[Path] = Field(default_factory=list, description="Extra folders of quiz files.")
    demo_timeout_s: float = Field(default=60.0, gt=0, le=600)
    demo_queue_size: int = Field(default=10, ge=1, le=1000)
    demo_cooldown_s: float = Field(default=30.0, ge=0)
    demo_device: str = Field(default="auto", pattern="^(auto|cpu|cuda(:[0-9]+)?)$")
    demo_worker: bool = Field(
        default=True, description="Start the torch worker process at bot start."
    )
    generated_pool_size: int = Field(
        default=4,
        ge=0,
        le=100,
        description="Instances made ahead per template for /quiz (0: written questions only).",
    )
    quiz_cooldown_s: float = Field(default=3.0, ge=0)
    upload_cooldown_s: float = Field(
        default=10.0, ge=0, description="Seconds between two /quizadmin add of one server."
    )
    me_cooldown_s: float = Field(default=15.0, ge=0, description="Per member, between /me.")
    live_start_limit_s: float = Field(
        default=60.0,
        ge=0,
        description="Per member 2 /quiz live start, per server 5, in this many seconds "
        "(0: no limit).",
    )
    live_max_rounds_per_server: int = Field(
        default=DEFAULT_MAX_ROUNDS,
        ge=1,
        le=50,
        description="Live rounds running at once in one server.",
    )
    shard_count: int | None = Field(
        default=None, ge=1, description="Total shards across all processes."
    )
    identify_spacing_s: float = Field(
        default=6.0,
        ge=0,
        le=60,
        description="Seconds between two IDENTIFYs of one Discord bucket across processes "
        "(Discord allows one per 5 s); 0 behind a gateway proxy that paces them itself.",
    )
    shard_ids: list[int] | None = Field(
        default=None, description="The shards this process runs, as a JSON list."
    )

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        value = value.upper()
        if value not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return value

    @field_validator("log_format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        if value not in {"text", "json"}:
            raise ValueError("must be 'text' or 'json'")
        return value

    @model_validator(mode="after")
    def _shards_add_up(self) -> Settings:
        # A SetupError (not a ValueError): pydantic lets it through as it is, and the
        # command line prints its one line and its fix.
        ids, count = self.shard_ids, self.shard_count
        if ids is None:
            return self
        shown = "[" + ",".join(str(i) for i in ids) + "]"
        if count is None:
            raise SetupError(
                f"SHARD_IDS={shown} needs SHARD_COUNT, the number of shards of all processes.",
                "Set SHARD_COUNT (the same in every process), e.g. SHARD_COUNT=2 SHARD_IDS=[0].",
            )
        if not ids:
            raise SetupError("SHARD_IDS=[] runs no shard.", "Leave SHARD_IDS unset for all shards.")
        wrong = [i for i in ids if not 0 <= i < count]
        if wrong:
            raise SetupError(
                f"SHARD_IDS={shown} has {wrong[0]}, but with SHARD_COUNT={count} the shards "
                f"are 0..{count - 1}.",
                "Each id must be below SHARD_COUNT; give every process its own ids.",
            )
        if len(set(ids)) != len(ids):
            raise SetupError(f"SHARD_IDS={shown} lists a shard twice.", "List each shard id once.")
        return self
