"""Integer arithmetic over named parameters, for the `[expect]` tables of
workload specs: small enough to read, strict enough that a spec cannot run code."""

import ast
import operator

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


class ExpressionError(ValueError):
    pass


def names(source: str) -> set[str]:
    """The parameter names an expression uses; raises ExpressionError if it is
    not plain integer arithmetic."""
    tree = _parse(source)
    used = set()
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif not isinstance(node, (ast.BinOp, ast.Constant, ast.Load, ast.UnaryOp, ast.USub,
                                   *_OPERATORS)):
            raise ExpressionError(f"{source!r}: only integers, names and + - * // % ** are allowed")
        if isinstance(node, ast.Constant) and type(node.value) is not int:
            raise ExpressionError(f"{source!r}: {node.value!r} is not an integer")
    return used


def evaluate(source: str, values: dict[str, int]) -> int:
    names(source)
    return _eval(_parse(source).body, values)


def _parse(source: str) -> ast.Expression:
    try:
        return ast.parse(source, mode="eval")
    except SyntaxError as e:
        raise ExpressionError(f"{source!r}: {e.msg}") from None


def _eval(node: ast.AST, values: dict[str, int]) -> int:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.UnaryOp):
        return -_eval(node.operand, values)
    return _OPERATORS[type(node.op)](_eval(node.left, values), _eval(node.right, values))
