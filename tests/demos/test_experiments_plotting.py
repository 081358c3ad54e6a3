"""Plotting helpers of the demos that keep a plot fast without changing what it says."""

from __future__ import annotations

import pytest

from experiments._common import _power_of_ten


@pytest.mark.parametrize(
    ("value", "label"),
    [(1e-2, "10\u207b\u00b2"), (1.0, "10\u2070"), (10.0, "10\u00b9"), (1e6, "10\u2076")],
)
def test_log_axis_decades_read_as_powers_of_ten(value: float, label: str) -> None:
    # Plain-text labels stand in for matplotlib's mathtext 10^n: the same reading.
    assert _power_of_ten(value) == label


def test_log_axis_labels_only_the_decades() -> None:
    assert _power_of_ten(3.0) == "" and _power_of_ten(0.0) == ""
