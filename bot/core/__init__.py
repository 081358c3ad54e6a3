"""The core: quiztutor's rules and types, pure.

Nothing here talks to Discord, a database, the network, torch or matplotlib (the import
contract in pyproject.toml holds it to that): every function takes plain values (and a
clock where time matters) and returns plain values, so each rule is tested on its own.
"""
