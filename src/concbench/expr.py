"""Integer arithmetic over named values, for the `[expect]` tables of
workload specs: small enough to read, strict enough that a spec cannot run
code. The only calls allowed are to the functions a caller names (the
catalogue's LCG, for workloads with random inputs)."""

import ast
import operator
from collections.abc import Callable

# A power beyond this many bits is no count: refused before it is computed,
# since the ops a run reports could make one take forever.
MAX_BITS = 4096


def _power(base: int, exponent: int) -> int:
    if exponent < 0 or abs(base).bit_length() * exponent > MAX_BITS:
        raise ArithmeticError(f"{base} ** {exponent} is not an integer of at most {MAX_BITS} bits")
    return base**exponent


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}

Functions = dict[str, Callable[..., int]]


class ExpressionError(ValueError):
    pass


class Uncomputable(ArithmeticError):
    """An expression with no value for the values given: a division by zero,
    a power too large, a function refusing its arguments."""


def names(source: str, functions: Functions = {}) -> set[str]:
    """The value names an expression uses; raises ExpressionError if it is
    not plain integer arithmetic with calls of the given functions."""
    tree = _parse(source)
    used = set()
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in functions or node.keywords:
                raise ExpressionError(
                    f"{source!r}: the only calls allowed are "
                    f"{', '.join(sorted(functions)) or 'none'}, with positional arguments"
                )
        elif isinstance(node, ast.Name):
            if node.id not in functions:
                used.add(node.id)
        elif not isinstance(node, (ast.BinOp, ast.Constant, ast.Load, ast.UnaryOp, ast.USub, *_OPERATORS)):
            raise ExpressionError(f"{source!r}: only integers, names and + - * // % ** are allowed")
        if isinstance(node, ast.Constant) and type(node.value) is not int:
            raise ExpressionError(f"{source!r}: {node.value!r} is not an integer")
    return used


def evaluate(source: str, values: dict[str, int], functions: Functions = {}) -> int:
    """The expression's value; Uncomputable if it has none for these values."""
    names(source, functions)
    try:
        return _eval(_parse(source).body, values, functions)
    except (ArithmeticError, ValueError) as e:  # the functions refuse arguments with ValueError
        raise Uncomputable(f"{e} (in {source!r})") from None


def _parse(source: str) -> ast.Expression:
    try:
        return ast.parse(source, mode="eval")
    except SyntaxError as e:
        raise ExpressionError(f"{source!r}: {e.msg}") from None


def _eval(node: ast.AST, values: dict[str, int], functions: Functions) -> int:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.UnaryOp):
        return -_eval(node.operand, values, functions)
    if isinstance(node, ast.Call):
        return functions[node.func.id](*(_eval(a, values, functions) for a in node.args))
    return _OPERATORS[type(node.op)](_eval(node.left, values, functions), _eval(node.right, values, functions))
