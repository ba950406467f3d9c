"""`@record`: a slotted dataclass that is cheaper to define, and to import.

A record is what `@dataclass(slots=True)` (or `frozen=True, slots=True`) makes, without the
`dataclasses` module: importing it imports `inspect` (with `ast`, `dis` and `tokenize`), some
12 ms, a sixth of a one-file `tritoncfg lint`, and Python 3.11's `dataclass` compiles six
methods per frozen class with `exec`. A record compiles only its `__init__` (which must be fast:
records are made by the million) and shares one `__repr__`, `__eq__`, `__hash__`, and for a
frozen record one `__setattr__` and `__delattr__`, between all record classes. They behave as
the generated ones do: fields with `compare=False` or `repr=False` are left out, a frozen record
is hashable and refuses changes (`dataclasses.FrozenInstanceError`), a mutable one is
unhashable, `__post_init__` runs, a method the class defines itself is kept, a record may extend
another, and records pickle and copy.

Fields are declared with this module's `field` (or `dataclasses.field`); `replace` and `fields`
are this module's. The `dataclasses` functions (`fields`, `replace`, `asdict`) work on records
too: the first of them to look builds the class's `__dataclass_fields__`, importing
`dataclasses` then, not before.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


class _Missing:
    """No default (`dataclasses.MISSING`'s counterpart)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record: what `field()` declared, and its name once the class is made."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr", "type")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        init: bool = True,
        repr: bool = True,  # dataclasses' own parameter name
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field's options, as `dataclasses.field` takes them."""
    return Field(default, default_factory, init, repr, compare)


def _declared(name: str, annotation: Any, value: Any) -> Field:
    """The field a class body declares: `value` is its default, a `field()`, a
    `dataclasses.field()` (read by its attributes: that module is imported already), or
    MISSING."""
    declared_by = sys.modules.get("dataclasses")  # only a module imported already made it
    if isinstance(value, Field):
        found = value
    elif declared_by is not None and isinstance(value, declared_by.Field):
        missing = declared_by.MISSING
        found = Field(
            MISSING if value.default is missing else value.default,
            MISSING if value.default_factory is missing else value.default_factory,
            value.init,
            value.repr,
            value.compare,
        )
    else:
        found = Field(value)
    found.name, found.type = name, annotation
    return found


def _is_class_var(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


def fields(record: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order (the class's bases' first)."""
    found: tuple[Field, ...] = record.__record_fields__
    return found


def replace(obj: T, /, **changes: Any) -> T:
    """`obj` with `changes`, made through its `__init__` (`dataclasses.replace`); a plain
    dataclass is handed to `dataclasses.replace`."""
    every = getattr(obj, "__record_fields__", None)
    if every is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in every:
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False")
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    made: T = obj.__class__(**changes)
    return made


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


def _frozen(message: str) -> Exception:
    from dataclasses import FrozenInstanceError  # a program error: rare, so imported then

    return FrozenInstanceError(message)


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise _frozen(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise _frozen(f"cannot delete field {name!r}")


def _getstate(names: tuple[str, ...]) -> Any:
    """A frozen record's `__getstate__`: its fields' values in order (read by one attrgetter)."""
    get = _getter(names)

    def __getstate__(self: Any) -> tuple[Any, ...]:
        return get(self)

    return __getstate__


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    """A frozen record's `__setstate__`: its values in field order. (The lint pool's answers, its
    hot path, are pickled through their `__init__` instead: lintrun.py's `_by_init`.)"""
    names = self.__record_names__
    if len(state) != len(names):
        raise ValueError(
            f"{len(state)} values for {len(names)} fields of {type(self).__qualname__}"
        )
    for name, value in zip(names, state, strict=True):
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


def _init(cls: Any, every: tuple[Field, ...], frozen: bool) -> Any:
    """`__init__`, compiled once for the class, as dataclass writes it."""
    env: dict[str, Any] = {"_FACTORY": _FACTORY}
    params: list[str] = []
    body: list[str] = []
    seen_default = False
    for f in every:
        name = f.name
        if f.default is not MISSING:
            env[f"_d_{name}"] = f.default
            value = name if f.init else f"_d_{name}"
            params += [f"{name}=_d_{name}"] if f.init else []
            seen_default = seen_default or f.init
        elif f.default_factory is not MISSING:
            env[f"_f_{name}"] = f.default_factory
            value = f"_f_{name}() if {name} is _FACTORY else {name}" if f.init else f"_f_{name}()"
            params += [f"{name}=_FACTORY"] if f.init else []
            seen_default = seen_default or f.init
        elif f.init:
            if seen_default:
                raise TypeError(f"non-default argument {name!r} follows default argument")
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


class _DataclassFields:
    """`__dataclass_fields__`, built when first looked at (by a `dataclasses` function): the
    `dataclasses` module is imported then, and only then."""

    def __get__(self, instance: Any, owner: type) -> dict[str, Any]:
        import dataclasses

        every = fields(owner)
        shadow = dataclasses.make_dataclass(
            owner.__name__,
            [
                (
                    f.name,
                    f.type,
                    dataclasses.field(
                        default=f.default if f.default is not MISSING else dataclasses.MISSING,
                        default_factory=f.default_factory
                        if f.default_factory is not MISSING
                        else dataclasses.MISSING,
                        init=f.init,
                        repr=f.repr,
                        compare=f.compare,
                    ),
                )
                for f in every
            ],
            init=False,
            repr=False,
            eq=False,
        )
        found: dict[str, Any] = shadow.__dataclass_fields__  # type: ignore[attr-defined]
        type.__setattr__(owner, "__dataclass_fields__", found)  # looked at once per class
        return found


def _collect(cls: type) -> tuple[Field, ...]:
    """The fields of `cls`: those of the records it extends, then its own annotated names (a
    redeclared name keeps its place), ClassVars left out."""
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            found[f.name] = f
    own = cls.__dict__
    for name, annotation in own.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        found[name] = _declared(name, annotation, own.get(name, MISSING))
    return tuple(found.values())


def _slotted(cls: type, every: tuple[Field, ...]) -> Any:
    """`cls` made again with a slot for each field its bases have no slot for (a class's slots
    are fixed when it is made; `dataclass(slots=True)` does the same)."""
    inherited = {name for base in cls.__mro__[1:] for name in base.__dict__.get("__slots__", ())}
    names = tuple(f.name for f in every if f.name not in inherited)
    body = dict(cls.__dict__)
    for name in (*names, "__dict__", "__weakref__"):
        body.pop(name, None)  # a default stays on the Field: a class value would shadow the slot
    body["__slots__"] = names
    made: Any = type(cls)(cls.__name__, cls.__bases__, body)
    made.__qualname__ = cls.__qualname__
    return made


def _finish(cls: type[T], frozen: bool, eq: bool) -> type[T]:
    if not cls.__doc__:
        names = [name for name in getattr(cls, "__annotations__", {}) if not name.startswith("_")]
        cls.__doc__ = f"{cls.__name__}({', '.join(names)})"
    every = _collect(cls)
    made: Any = _slotted(cls, every)
    own = cls.__dict__
    made.__record_fields__ = every
    made.__dataclass_fields__ = _DataclassFields()
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
        made.__getstate__ = _getstate(made.__record_names__)
        made.__setstate__ = _setstate
    return made  # type: ignore[no-any-return]


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False, eq: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True) -> Any:
    """`@record` or `@record(frozen=True)`, in place of `@dataclass(slots=True)` and
    `@dataclass(frozen=True, slots=True)`; `eq=False` keeps identity equality and hashing."""
    if cls is None:
        return lambda cls: _finish(cls, frozen, eq)
    return _finish(cls, frozen, eq)
