"""``python -m experiments NAME ...`` (same as ``quiztutor demo NAME ...``)."""

import sys

from experiments.cli import main

sys.exit(main())
