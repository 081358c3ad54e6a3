"""The bot's own words, per area, in Indonesian (`id`) and English (`en`); see bot.i18n."""
