"""`@record` behaves as the dataclass it replaces: equality, hashing, repr, frozenness, and the
dataclasses functions."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from tritoncfg.diagnostics import Fix
from tritoncfg.record import field, fields, record, replace


@record(frozen=True)
class Point:
    x: int
    label: str = dataclasses.field(default="", compare=False, repr=False)
    tags: tuple[str, ...] = ()


@record
class Box:
    size: int
    items: list[int] = dataclasses.field(default_factory=list)

    def __repr__(self) -> str:
        return f"<box {self.size}>"


def test_a_frozen_record_compares_hashes_and_prints_its_compared_fields() -> None:
    a, b = Point(1, "a"), Point(1, "b")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1  # label: compare=False
    assert a != Point(2) and a != (1, ()) and Point(1, tags=("t",)) != a
    assert repr(Point(3, "x", ("t",))) == "Point(x=3, tags=('t',))"  # label: repr=False
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = 2  # type: ignore[misc]
    assert not hasattr(a, "__dict__")  # slotted


def test_a_mutable_record_is_unhashable_and_keeps_its_own_methods() -> None:
    box = Box(1)
    box.items.append(2)
    assert box == Box(1, [2]) and box != Box(1)
    assert Box(1).items is not Box(1).items  # default_factory
    with pytest.raises(TypeError):
        hash(box)
    assert repr(box) == "<box 1>"


def test_records_are_dataclasses_and_pickle() -> None:
    point = Point(1, "a", ("t",))
    assert [f.name for f in dataclasses.fields(point)] == ["x", "label", "tags"]
    assert dataclasses.replace(point, x=5) == Point(5, tags=("t",))
    assert dataclasses.asdict(point) == {"x": 1, "label": "a", "tags": ("t",)}
    assert pickle.loads(pickle.dumps(point)) == point
    fix = Fix("a", ())
    assert pickle.loads(pickle.dumps(fix)) == fix and {fix: 1}[Fix("a", ())] == 1


@record(frozen=True)
class Chosen:
    codes: tuple[str, ...]
    limit: int = 3
    chosen: frozenset[str] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "chosen", frozenset(self.codes[: self.limit]))


def test_post_init_fills_a_field_that_is_not_a_parameter() -> None:
    made = Chosen(("a", "b", "c", "d"))
    assert (
        made.chosen == {"a", "b", "c"}
        and repr(made) == "Chosen(codes=('a', 'b', 'c', 'd'), limit=3)"
    )
    assert Chosen(("a",), limit=0).chosen == frozenset()
    with pytest.raises(TypeError):
        Chosen(("a",), 1, frozenset())  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del made.limit
    copied = pickle.loads(pickle.dumps(made))
    assert copied == made and copied.chosen == made.chosen
    assert copy.deepcopy(made) == made and copy.copy(made).chosen == made.chosen


@record(eq=False)
class Node:
    name: str


def test_eq_false_keeps_identity_equality_and_hashing() -> None:
    a = Node("x")
    assert a != Node("x") and a == a and len({a, Node("x")}) == 2


@record(frozen=True)
class Base:
    code: str
    level: int = 1


@record(frozen=True)
class Derived(Base):
    extra: tuple[str, ...] = field(default=(), compare=False)
    seen: list[str] = field(default_factory=list, repr=False)


def test_a_record_extends_a_record_with_its_own_field_declarations() -> None:
    made = Derived("TC001", 2, ("x",))
    assert [f.name for f in fields(Derived)] == ["code", "level", "extra", "seen"]
    assert [f.name for f in dataclasses.fields(made)] == ["code", "level", "extra", "seen"]
    assert made == Derived("TC001", 2) and made != Base("TC001", 2)  # extra: compare=False
    assert repr(made) == "Derived(code='TC001', level=2, extra=('x',))"
    assert Derived("a").seen is not Derived("a").seen and not hasattr(made, "__dict__")
    assert isinstance(made, Base) and Derived.__slots__ == ("extra", "seen")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.code = "TC002"  # type: ignore[misc]
    copied = pickle.loads(pickle.dumps(made))
    assert copied == made and (copied.extra, copied.seen) == (("x",), [])


def test_a_frozen_record_is_pickled_as_its_values_in_order() -> None:
    made = Derived("TC001", 2, ("x",), ["a"])
    assert made.__getstate__() == ("TC001", 2, ("x",), ["a"])
    blank = Derived.__new__(Derived)
    blank.__setstate__(("TC002", 3, (), ["b"]))
    assert blank == Derived("TC002", 3, (), ["b"]) and blank.seen == ["b"]
    with pytest.raises(ValueError, match="3 values for 4 fields of Derived"):
        Derived.__new__(Derived).__setstate__(("TC002", 3, ()))
    assert Point(1).__getstate__() == (1, "", ())  # one attrgetter, in field order


def test_replace_makes_a_new_record_through_its_init() -> None:
    point = Point(1, "a", ("t",))
    moved = replace(point, x=2)
    assert moved == Point(2, tags=("t",)) and moved.label == "a" and point.x == 1
    assert replace(Chosen(("a", "b")), limit=1).chosen == {"a"}  # __post_init__ ran again
    with pytest.raises(ValueError, match="init=False"):
        replace(Chosen(("a",)), chosen=frozenset())
    plain = dataclasses.make_dataclass("Plain", [("n", int)])(1)  # a plain dataclass
    assert replace(plain, n=3).n == 3


def test_a_field_without_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @record
        class Bad:
            a: int = 0
            b: int
