"""`python -m bot` is the same as the `quiztutor` console script."""

import sys

from bot.cli.main import main

sys.exit(main())
