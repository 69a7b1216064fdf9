"""Evaluate the small Python expressions a reference evaluator hands to `eval`, without calling `eval`.

MedCalc-Bench's official reader and checker turn answer text into values with Python's `eval`
("4.12", "-3", "str(round(140 * 0.85))"). Running model text through `eval` is out of the question
here, so this evaluates the same expressions over Python's own grammar (`ast`) with a closed set of
operations: numbers, strings, arithmetic, comparisons, and calls to the names the reference passes
in. What Python would reject (a syntax error, an unknown name, a division by zero) raises
`EvalError`, as `eval` would raise; a construct this module does not cover, which the reference
might evaluate, raises `Unsupported`, so a scorer can report it rather than guess.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

# Exponents beyond this on integers would take Python minutes and gigabytes; the reference would hang.
MAX_INT_EXPONENT = 10_000
_MATH_FUNCTIONS = frozenset({"sqrt", "exp", "pow", "floor", "ceil", "fabs", "log", "log10", "log2", "trunc",
                             "sin", "cos", "tan", "hypot", "isclose", "isfinite", "isnan"})
_MATH_CONSTANTS = frozenset({"pi", "e", "tau", "inf", "nan"})
_BINARY: Mapping[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_UNARY: Mapping[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_, ast.Invert: operator.invert,
}
_COMPARE: Mapping[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}


class EvalError(Exception):
    """Python's `eval` would raise on this expression (the reference then counts the answer wrong)."""


class Unsupported(Exception):  # noqa: N818  (a limit of this module, not an error in the expression)
    """The expression uses something this module does not evaluate; the reference might."""


class MathModule:
    """Stands for the `math` module in a namespace: only its common functions and constants."""


MATH = MathModule()


def evaluate(source: str, names: Mapping[str, object] | None = None) -> object:
    """The value Python's `eval(source, ...)` gives with these names, or EvalError / Unsupported."""
    try:
        # eval() skips leading spaces and tabs of a string source; ast.parse does not.
        tree = ast.parse(source.lstrip(" \t"), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise EvalError(type(exc).__name__) from None
    try:
        return _value(tree.body, names or {})
    except (ArithmeticError, ValueError, TypeError, RecursionError) as exc:
        raise EvalError(type(exc).__name__) from None


def _value(node: ast.expr, names: Mapping[str, object]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand, names))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return _power(_value(node.left, names), _value(node.right, names))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, names), _value(node.right, names)
        if isinstance(node.op, ast.Mult) and _repeats_too_much(left, right):
            raise Unsupported("sequence repeated too often")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):
        return _boolean(node, names)
    if isinstance(node, ast.Compare):
        return _compare(node, names)
    if isinstance(node, ast.IfExp):
        return _value(node.body if _value(node.test, names) else node.orelse, names)
    if isinstance(node, ast.Name):
        return _name(node.id, names)
    if isinstance(node, ast.Attribute):
        return _attribute(node, names)
    if isinstance(node, ast.Call):
        return _call(node, names)
    raise Unsupported(type(node).__name__)


def _power(base: Any, exponent: Any) -> Any:
    if isinstance(base, int) and isinstance(exponent, int) and abs(exponent) > MAX_INT_EXPONENT and abs(base) > 1:
        raise Unsupported("integer power too large")
    return operator.pow(base, exponent)


def _repeats_too_much(left: Any, right: Any) -> bool:
    # "x" * 10**9 is valid Python that would take a gigabyte.
    count = right if isinstance(left, (str, bytes)) else left if isinstance(right, (str, bytes)) else 0
    return isinstance(count, int) and count > MAX_INT_EXPONENT


def _boolean(node: ast.BoolOp, names: Mapping[str, object]) -> Any:
    result: Any = None
    for operand in node.values:
        result = _value(operand, names)
        if isinstance(node.op, ast.And) and not result:
            return result
        if isinstance(node.op, ast.Or) and result:
            return result
    return result


def _compare(node: ast.Compare, names: Mapping[str, object]) -> bool:
    left = _value(node.left, names)
    for op, right_node in zip(node.ops, node.comparators, strict=True):
        if type(op) not in _COMPARE:
            raise Unsupported(type(op).__name__)
        right = _value(right_node, names)
        if not _COMPARE[type(op)](left, right):
            return False
        left = right
    return True


def _name(name: str, names: Mapping[str, object]) -> object:
    if name not in names:
        raise EvalError("NameError")
    found = names[name]
    if found is Unsupported:
        raise Unsupported(name)
    return found


def _attribute(node: ast.Attribute, names: Mapping[str, object]) -> object:
    owner = _value(node.value, names)
    if owner is not MATH:
        raise Unsupported(f"attribute {node.attr}")
    if node.attr in _MATH_FUNCTIONS or node.attr in _MATH_CONSTANTS:
        found: object = getattr(math, node.attr)
        return found
    if hasattr(math, node.attr):
        raise Unsupported(f"math.{node.attr}")
    raise EvalError("AttributeError")


def _call(node: ast.Call, names: Mapping[str, object]) -> Any:
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise Unsupported("keyword or starred arguments")
    function = _value(node.func, names)
    if not callable(function):
        raise EvalError("TypeError")
    args = [_value(arg, names) for arg in node.args]
    if function is pow and len(args) == 2:
        return _power(args[0], args[1])
    return function(*args)
