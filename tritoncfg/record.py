"""`@record`: a slotted dataclass that is cheaper to define.

Python 3.11's `dataclass` compiles each generated method with `exec`: six per frozen class,
about 0.1 ms each, and `tritoncfg lint` defines some 60 record classes before it reads a file.
A record compiles only its `__init__` (which must be fast: records are made by the million) and
shares one `__repr__`, `__eq__`, `__hash__`, and for a frozen record one `__setattr__` and
`__delattr__`, between all record classes. They behave as the generated ones do: fields with
`compare=False` or `repr=False` are left out, a frozen record is hashable and refuses changes, a
mutable one is unhashable, `__post_init__` runs, a method the class defines itself is kept, and
records pickle. The result is a real dataclass (`dataclasses.fields`, `replace` and `asdict`
work); `__dataclass_params__.frozen` is False, as the frozen methods are the shared ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
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


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in self.__record_names__)


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for name, value in zip(self.__record_names__, state, strict=True):
        object.__setattr__(self, name, value)


_FACTORY = object()  # the default of a parameter whose field has a default_factory


def _slot_setter(cls: Any, name: str) -> Any:
    """The `__set__` of the slot that holds field `name` (in `cls` or the record it extends): a
    frozen record's `__init__` stores through it, at a third less than `object.__setattr__`,
    which looks the name up in the class's MRO on every call."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None and hasattr(found, "__set__"):
            return found.__set__
    raise AttributeError(f"{cls.__qualname__} has no slot {name!r}")


def _init(cls: Any, every: tuple[Field[Any], ...], frozen: bool) -> Any:
    """`__init__`, compiled once for the class, as dataclass writes it."""
    env: dict[str, Any] = {"_FACTORY": _FACTORY}
    params: list[str] = []
    body: list[str] = []
    for f in every:
        name = f.name
        if f.default is not MISSING:
            env[f"_d_{name}"] = f.default
            value = name if f.init else f"_d_{name}"
            params += [f"{name}=_d_{name}"] if f.init else []
        elif f.default_factory is not MISSING:
            env[f"_f_{name}"] = f.default_factory
            value = f"_f_{name}() if {name} is _FACTORY else {name}" if f.init else f"_f_{name}()"
            params += [f"{name}=_FACTORY"] if f.init else []
        elif f.init:
            params.append(name)
            value = name
        else:
            continue  # set by __post_init__
        if frozen:
            env[f"_s_{name}"] = _slot_setter(cls, name)
            body.append(f"_s_{name}(self, {value})")
        else:
            body.append(f"self.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, env)  # our own generated code, as dataclasses does
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _finish(cls: type[T], frozen: bool, eq: bool) -> type[T]:
    if not cls.__doc__:
        # dataclass writes a missing docstring from `inspect.signature`, whose first use parses
        # the text signature of object.__init__ with tokenize (some 10 ms at start-up)
        names = [name for name in getattr(cls, "__annotations__", {}) if not name.startswith("_")]
        cls.__doc__ = f"{cls.__name__}({', '.join(names)})"
    made: Any = dataclass(slots=True, init=False, repr=False, eq=False)(cls)
    own = cls.__dict__
    every = fields(made)
    made.__init__ = _init(made, every, frozen)
    made.__record_key__ = staticmethod(_getter(tuple(f.name for f in every if f.compare)))
    made.__record_repr__ = tuple(f.name for f in every if f.repr)
    made.__record_names__ = tuple(f.name for f in every)
    if "__repr__" not in own:
        made.__repr__ = _repr
    if eq and "__eq__" not in own:
        made.__eq__ = _eq
        if "__hash__" not in own:
            made.__hash__ = _hash if frozen else None
    if frozen:
        made.__setattr__ = _frozen_setattr
        made.__delattr__ = _frozen_delattr
        made.__getstate__ = _getstate
        made.__setstate__ = _setstate
    return made  # type: ignore[no-any-return]


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False, eq: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True) -> Any:
    """`@record` or `@record(frozen=True)`, in place of `@dataclass(slots=True)` and
    `@dataclass(frozen=True, slots=True)`; `eq=False` keeps identity equality and hashing."""
    if cls is None:
        return lambda cls: _finish(cls, frozen, eq)
    return _finish(cls, frozen, eq)
