"""The bot's own words, per area, in Indonesian (`id`) and English (`en`); see bot.core.i18n."""
