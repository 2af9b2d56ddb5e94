import time

import pytest

from concbench import expr, series


def test_arithmetic_over_names():
    assert (
        expr.evaluate("groups * producers * items * (items + 1) // 2", {"groups": 2, "producers": 3, "items": 4}) == 60
    )
    assert expr.evaluate("2 ** 10 % 1000 - -1", {}) == 25


def test_names_are_reported():
    assert expr.names("a * (b + 1)") == {"a", "b"}


@pytest.mark.parametrize(
    "source",
    [
        "__import__('os').system('true')",
        "a.b",
        "1.5 * a",
        "a / 2",
        "'text'",
        "a if a else 1",
        "[a]",
        "a *",
    ],
)
def test_anything_but_integer_arithmetic_is_refused(source):
    with pytest.raises(expr.ExpressionError):
        expr.evaluate(source, {"a": 1})


@pytest.mark.parametrize(
    "source, values",
    [
        ("ops // (ops - 10)", {"ops": 10}),
        ("2 ** ops", {"ops": 2**62}),  # refused before it is computed, which would never end
        ("2 ** -1", {}),
        ("lcg_first_above(3, 0, 10, 100)", {}),
    ],
)
def test_an_expression_without_an_integer_value_is_uncomputable(source, values):
    from concbench.workloads import FUNCTIONS

    with pytest.raises(expr.Uncomputable):
        expr.evaluate(source, values, FUNCTIONS)


def refused_quickly(error: type[Exception], source: str, values: dict[str, int]) -> str:
    """The message of an expression refused within a second (each of these once ran for minutes or crashed)."""
    from concbench.workloads import FUNCTIONS

    started = time.monotonic()
    with pytest.raises(error) as refusal:
        expr.evaluate(source, values, FUNCTIONS)
    assert time.monotonic() - started < 1
    return str(refusal.value)


@pytest.mark.parametrize(
    "source, message",
    [
        ("-" * 999 + "a", "nested more than 50 levels deep"),  # 1,000 levels, within the length
        ("a" + " * a" * 60, "nested more than 50 levels deep"),
        ("(" * 1000 + "a" + ")" * 1000, "2,001 characters, at most 1,000"),
        ("1+" * 5000 + "1", "10,001 characters, at most 1,000"),  # the parser's RecursionError
        ("9" * 1_000_000, "1,000,000 characters, at most 1,000"),  # a 1 MB literal
    ],
)
def test_a_source_too_long_or_too_deep_is_refused_before_it_is_evaluated(source, message):
    assert refused_quickly(expr.ExpressionError, source, {"a": 1}).endswith(message)


def test_the_parsers_own_limits_are_an_expression_error(monkeypatch):
    def overflowing(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded during ast construction")

    monkeypatch.setattr(expr.ast, "parse", overflowing)
    assert refused_quickly(expr.ExpressionError, "a", {"a": 1}) == "'a': nested too deeply to parse"


@pytest.mark.parametrize(
    "source, values, message",
    [
        ("a * a", {"a": 2**4000}, "a value of 8,001 bits, at most 4096"),
        ("a * a * a * a * a * a * a * a", {"a": 2**1000}, "a value of 5,001 bits, at most 4096"),
        ("ops", {"ops": 10**5000}, "a value of 16,610 bits, at most 4096"),
        ("lcg_sum(10**9, 0, 1)", {}, "1,000,000,000 draws asked for, at most 1,000,000"),
        ("lcg_sum(ops, 0, 1)", {"ops": 2**62}, "4,611,686,018,427,387,904 draws asked for"),
        ("lcg_first_above(10**9, 0, 1, 0)", {}, "1,000,000,000 draws asked for"),
        ("bisection_candidates(10**9, 0, 1, 0)", {}, "1,000,000,000 draws asked for"),
        ("lcg_sum(-1, 0, 1)", {}, "-1 draws asked for"),
        ("squares_mod_sum(10**12, 10**12)", {}, "1,000,000,000,000 terms (the least of count and modulus)"),
        ("squares_mod_sum(-1, 10)", {}, "a count of at least 0"),
    ],
)
def test_a_value_or_a_function_call_too_costly_is_refused_before_it_is_computed(source, values, message):
    assert message in refused_quickly(expr.Uncomputable, source, values)


def test_a_refusal_quotes_a_long_source_shortened():
    message = refused_quickly(expr.ExpressionError, "a" + " * a" * 60, {"a": 1})
    assert message == repr(("a" + " * a" * 60)[: expr.QUOTED]) + "...: nested more than 50 levels deep"


@pytest.mark.parametrize("count", [0, 1, 9, 10, 11, 99, 100, 101, 12_345])
def test_decimal_digits_below_counts_the_digits_of_every_number_below(count):
    assert series.decimal_digits_below(count) == sum(len(str(i)) for i in range(count))
