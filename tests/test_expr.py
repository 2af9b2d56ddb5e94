import pytest

from concbench import expr


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
