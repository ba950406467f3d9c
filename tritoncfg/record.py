"""`@record`: a slotted dataclass that is cheaper to define.

Python 3.11's `dataclass` compiles each generated method with `exec`: six per frozen class,
about 0.1 ms each, and `tritoncfg lint` defines some 60 record classes before it reads a file.
A record lets `dataclass` generate only what must be fast (`__init__`, and for a frozen record
the `__setattr__`/`__delattr__` that keep it frozen) and shares one `__repr__`, `__eq__` and
`__hash__` between all record classes. They behave as the generated ones do: fields with
`compare=False` or `repr=False` are left out, a frozen record is hashable, a mutable one is not,
and a method the class defines itself is kept. The result is a real dataclass
(`dataclasses.fields`, `replace` and `asdict` work).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if not names:
        return lambda _: ()
    get = attrgetter(*names)
    return get if len(names) > 1 else lambda obj: (get(obj),)


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_repr__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self.__record_key__
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_key__(self))


def _finish(cls: type[T], frozen: bool) -> type[T]:
    made: Any = dataclass(slots=True, frozen=frozen, repr=False, eq=False)(cls)
    own = cls.__dict__
    every = fields(made)
    made.__record_key__ = staticmethod(_getter(tuple(f.name for f in every if f.compare)))
    made.__record_repr__ = tuple(f.name for f in every if f.repr)
    if "__repr__" not in own:
        made.__repr__ = _repr
    if "__eq__" not in own:
        made.__eq__ = _eq
        if "__hash__" not in own:
            made.__hash__ = _hash if frozen else None
    return made  # type: ignore[no-any-return]


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, frozen: bool = False) -> Any:
    """`@record` or `@record(frozen=True)`, in place of `@dataclass(slots=True)` and
    `@dataclass(frozen=True, slots=True)`."""
    if cls is None:
        return lambda cls: _finish(cls, frozen)
    return _finish(cls, frozen)
