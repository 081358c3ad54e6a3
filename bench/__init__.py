"""Benchmarks of quiztutor's budgets (`python -m bench [--quick] [--only NAME]`)."""
