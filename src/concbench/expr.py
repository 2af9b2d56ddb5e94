"""Integer arithmetic over named values, for the `[expect]` tables of
workload specs: small enough to read, strict enough that a spec cannot run
code. The only calls allowed are to the functions a caller names (the
catalogue's LCG, for workloads with random inputs).

Every evaluation is cheap whatever the input: the source, its nesting and
every value along the way are bounded, and each function bounds its own
arguments' cost (lcg.py, series.py)."""

import ast
import operator
from collections.abc import Callable

# A value beyond this many bits is no count: refused, and a power before it is
# computed, since one with the ops a run reports could take forever. Any other
# operation on values this size is quick.
MAX_BITS = 4096
# The catalogue's longest expression has 93 characters: a source ten times
# that is no formula but a huge literal, or a nesting that overflows the parser.
MAX_LENGTH = 1000
# Levels of the syntax tree (an operation, its operands, theirs...): the
# catalogue's deepest has 9. Evaluation recurses a few frames per level.
MAX_DEPTH = 50
# Characters of a source an error quotes: enough to find it, one line.
QUOTED = 60


def _power(base: int, exponent: int) -> int:
    # base ** exponent has at least (bits of base - 1) * exponent + 1 bits.
    if exponent < 0 or (abs(base).bit_length() - 1) * exponent >= MAX_BITS:
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
    a value too large, a function refusing its arguments."""


def names(source: str, functions: Functions = {}) -> set[str]:
    """The value names an expression uses; raises ExpressionError if it is
    not plain integer arithmetic with calls of the given functions, or is too
    long or too deeply nested to evaluate."""
    return _checked(source, functions)[1]


def evaluate(source: str, values: dict[str, int], functions: Functions = {}) -> int:
    """The expression's value; Uncomputable if it has none for these values."""
    tree = _checked(source, functions)[0]
    try:
        return _eval(tree.body, values, functions)
    except (ArithmeticError, ValueError) as e:  # the functions refuse arguments with ValueError
        raise Uncomputable(f"{e} (in {_quoted(source)})") from None


def _checked(source: str, functions: Functions) -> tuple[ast.Expression, set[str]]:
    tree = _parse(source)
    used = set()
    for node in ast.walk(tree.body):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in functions or node.keywords:
                raise ExpressionError(
                    f"{_quoted(source)}: the only calls allowed are "
                    f"{', '.join(sorted(functions)) or 'none'}, with positional arguments"
                )
        elif isinstance(node, ast.Name):
            if node.id not in functions:
                used.add(node.id)
        elif not isinstance(node, (ast.BinOp, ast.Constant, ast.Load, ast.UnaryOp, ast.USub, *_OPERATORS)):
            raise ExpressionError(f"{_quoted(source)}: only integers, names and + - * // % ** are allowed")
        if isinstance(node, ast.Constant) and type(node.value) is not int:
            raise ExpressionError(f"{_quoted(source)}: {node.value!r} is not an integer")
    return tree, used


def _parse(source: str) -> ast.Expression:
    if len(source) > MAX_LENGTH:
        raise ExpressionError(f"{_quoted(source)}: {len(source):,} characters, at most {MAX_LENGTH:,}")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as e:
        raise ExpressionError(f"{_quoted(source)}: {e.msg}") from None
    except (RecursionError, MemoryError):  # the parser's limits, which a caller's deep stack brings closer
        raise ExpressionError(f"{_quoted(source)}: nested too deeply to parse") from None
    if _depth(tree.body) > MAX_DEPTH:
        raise ExpressionError(f"{_quoted(source)}: nested more than {MAX_DEPTH} levels deep")
    return tree


def _quoted(source: str) -> str:
    return repr(source) if len(source) <= QUOTED else f"{source[:QUOTED]!r}..."


def _depth(root: ast.AST) -> int:
    """The levels of a tree, counted without recursion: it may be deeper than the stack."""
    deepest, pending = 0, [(root, 1)]
    while pending:
        node, depth = pending.pop()
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _eval(node: ast.AST, values: dict[str, int], functions: Functions) -> int:
    value = _value(node, values, functions)
    if abs(value).bit_length() > MAX_BITS:  # each operand bounded, so each step is cheap
        raise ArithmeticError(f"a value of {abs(value).bit_length():,} bits, at most {MAX_BITS}")
    return value


def _value(node: ast.AST, values: dict[str, int], functions: Functions) -> int:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.UnaryOp):
        return -_eval(node.operand, values, functions)
    if isinstance(node, ast.Call):
        return functions[node.func.id](*(_eval(a, values, functions) for a in node.args))
    return _OPERATORS[type(node.op)](_eval(node.left, values, functions), _eval(node.right, values, functions))
