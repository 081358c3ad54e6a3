"""`quiztutor generate` and the template check of `quiztutor validate` (issue 23)."""

from __future__ import annotations

import json

import pytest

from bot.cli.main import main as cli_main
from bot.common.i18n import t
from experiments.catalog import ParamError
from experiments.generators import generate
from experiments.generators.registry import TEMPLATES, check_seed, get_template
from tests.support.generated import ALWAYS_LONGEST


def test_generate_prints_one_instance_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["generate", "adam-mixed-memory", "--seed", "5", "--json", "--lang", "id"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == generate("adam-mixed-memory", 5).cli_dict("id")
    assert list(printed) == [
        "template", "seed", "params", "prompt", "choices", "answer", "explanation"
    ]  # fmt: skip


def test_generate_lists_templates_and_refuses_bad_input_in_two_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli_main(["generate", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in TEMPLATES) and "optimizer-memory" in listed
    assert cli_main(["generate", "fp16-rounds"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("error: unknown template 'fp16-rounds'; available: fp16-round")
    assert err[1] == "fix: run `quiztutor generate --list` to see the templates"
    assert cli_main(["generate", "fp16-round", "--seed", "-3"]) == 2
    assert "fix: give --seed a whole number" in capsys.readouterr().err
    assert cli_main(["help", "generate"]) == 0
    assert capsys.readouterr().out.startswith("usage: quiztutor generate")
    assert cli_main(["help"]) == 0
    assert "print a generated question" in capsys.readouterr().out


def test_template_errors_have_texts_in_both_languages() -> None:
    for bad in (lambda: get_template("nope"), lambda: check_seed(-1)):
        with pytest.raises(ParamError) as caught:
            bad()
        for locale in ("id", "en"):
            text = t(caught.value.key, locale, **caught.value.params)
            assert text != caught.value.key and "{" not in text
    assert "fp16-round" in t("generate.unknown", "id", name="x", available="fp16-round")


def test_validate_runs_the_templates_and_names_a_broken_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["validate", "--seeds", "20"]) == 0
    assert "24 generated" in capsys.readouterr().out
    monkeypatch.setitem(TEMPLATES, ALWAYS_LONGEST.name, ALWAYS_LONGEST)
    assert cli_main(["validate", "--seeds", "20"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == (
        "template always-longest: the right answer is the longest en choice in all 20 instances"
    )
    assert "2 problem(s) found." in err  # the en and the id choice
    assert cli_main(["validate", "--seeds", "0"]) == 0  # skipped
    capsys.readouterr()
