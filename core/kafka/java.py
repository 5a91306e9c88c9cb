"""JVM semantics kzc must reproduce to match Kafka's behaviour and messages character for character.

Kafka parses ``--replica-assignment`` with Java's ``String.split``, ``String.trim`` and
``Integer.parseInt``, sorts rack names with ``String.compareTo``, and prints collections whose
iteration order is that of ``java.util.HashSet``/``HashMap`` (Java code) or of Scala 2.13's immutable
and mutable hash collections (Scala code). Python's built-ins differ in each of these, so this module
provides faithful equivalents. Every function here was checked against OpenJDK 17 and the
scala-library 2.13.15 jar that Kafka 3.9.1 ships (see the tests for the recorded cases).

Values that Java holds in an ``int`` are Python ints in ``[-2**31, 2**31 - 1]``; functions that take
them document what happens outside that range.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
_MASK32 = 0xFFFFFFFF

T = TypeVar("T", bound=Hashable)


class JavaNumberFormatError(ValueError):
    """What ``Integer.parseInt`` throws (``NumberFormatException``); ``str()`` is Java's message."""


def to_int32(value: int) -> int:
    """Wrap ``value`` to a Java ``int`` (two's complement overflow, as ``int`` arithmetic does)."""
    value &= _MASK32
    return value - 2**32 if value > INT_MAX else value


def java_rem(dividend: int, divisor: int) -> int:
    """Java's ``%``: the remainder takes the sign of the dividend (Python's ``%`` takes the divisor's)."""
    remainder = abs(dividend) % abs(divisor)
    return -remainder if dividend < 0 else remainder


def java_split(text: str, separator: str) -> list[str]:
    """``text.split(separator)`` for a one-character, non-regex-special separator (``","``, ``":"``).

    Java drops *trailing* empty strings only, keeps leading and inner ones, and returns
    ``[text]`` unchanged when the separator does not occur (so ``"".split(",")`` is ``[""]``
    while ``",".split(",")`` is ``[]``).

    Raises:
        ValueError: ``separator`` is not a single character that Java treats literally.
    """
    if len(separator) != 1 or separator in ".$|()[{^?*+\\":
        raise ValueError(f"java_split supports one literal character, not {separator!r}")
    pieces = text.split(separator)
    if len(pieces) == 1:
        return [text]
    while pieces and pieces[-1] == "":
        pieces.pop()
    return pieces


def java_trim(text: str) -> str:
    """``String.trim()``: strips every char ``<= U+0020`` at both ends (not Unicode whitespace)."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def _java_decimal_digit(char: str) -> int:
    """``Character.digit(c, 10)`` for one Python code point: Unicode Nd digits of the BMP count.

    Java walks UTF-16 units, so a supplementary code point is two surrogates, neither a digit.
    """
    if ord(char) > 0xFFFF:
        return -1
    return unicodedata.decimal(char, -1)


def java_parse_int(text: str) -> int:
    """``Integer.parseInt(text)`` (radix 10) as in OpenJDK 17.

    Accepts one leading ``+`` or ``-`` and then any Unicode decimal digits of the BMP
    (``"١٢"`` and fullwidth ``"１２"`` parse as 12), with the 32-bit range check.

    Raises:
        JavaNumberFormatError: ``For input string: "<text>"`` (Java 17 adds no radix suffix
            for radix 10), for empty text, a lone sign, any non-digit, or overflow.
    """
    error = JavaNumberFormatError(f'For input string: "{text}"')
    if not text:
        raise error
    negative = text[0] == "-"
    digits = text[1:] if text[0] in "+-" else text
    if not digits:
        raise error
    value = 0
    for char in digits:
        digit = _java_decimal_digit(char)
        if digit < 0:
            raise error
        value = value * 10 + digit
        if value > -INT_MIN:
            raise error
    value = -value if negative else value
    if not INT_MIN <= value <= INT_MAX:
        raise error
    return value


def java_string_sort_key(text: str) -> bytes:
    """Sort key giving ``String.compareTo`` order: lexicographic over UTF-16 code units.

    Python compares code points, which differs as soon as a character beyond the BMP
    (stored by Java as surrogates D800–DFFF) meets one in E000–FFFF.
    """
    return text.encode("utf-16-be", "surrogatepass")


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` as a signed 32-bit int (over UTF-16 code units)."""
    units = java_string_sort_key(text)
    value = 0
    for i in range(0, len(units), 2):
        value = (31 * value + (units[i] << 8 | units[i + 1])) & _MASK32
    return to_int32(value)


def java_list_str(values: Iterable[object]) -> str:
    """``AbstractCollection.toString()`` of a ``List<Integer>``: ``[2, 1]``."""
    return "[" + ", ".join(str(v) for v in values) + "]"


# --- java.util.HashMap / HashSet iteration order (OpenJDK 8-21 algorithm) -------------------------

_TREEIFY_THRESHOLD = 8
_UNTREEIFY_THRESHOLD = 6
_MIN_TREEIFY_CAPACITY = 64


def _java_spread(key: int) -> int:
    """``HashMap.hash(Integer)``: ``h ^ (h >>> 16)`` as an unsigned 32-bit value."""
    h = key & _MASK32
    return h ^ (h >> 16)


@dataclass(eq=False)
class _TreeNode:
    """A ``HashMap.TreeNode``: red-black tree links plus the bin's ``next`` chain position."""

    key: int
    hash: int  # signed, as Java compares it
    red: bool = False
    parent: _TreeNode | None = None
    left: _TreeNode | None = None
    right: _TreeNode | None = None


def _rotate_left(root: _TreeNode, p: _TreeNode) -> _TreeNode:
    r = p.right
    if r is None:
        return root
    p.right = r.left
    if r.left is not None:
        r.left.parent = p
    r.parent = p.parent
    if p.parent is None:
        root = r
        r.red = False
    elif p.parent.left is p:
        p.parent.left = r
    else:
        p.parent.right = r
    r.left = p
    p.parent = r
    return root


def _rotate_right(root: _TreeNode, p: _TreeNode) -> _TreeNode:
    node = p.left
    if node is None:
        return root
    p.left = node.right
    if node.right is not None:
        node.right.parent = p
    node.parent = p.parent
    if p.parent is None:
        root = node
        node.red = False
    elif p.parent.right is p:
        p.parent.right = node
    else:
        p.parent.left = node
    node.right = p
    p.parent = node
    return root


def _balance_insertion(root: _TreeNode, x: _TreeNode) -> _TreeNode:
    """``HashMap.TreeNode.balanceInsertion``, line for line (the resulting root decides the order)."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        if xp is xpp.left:
            uncle = xpp.right
            if uncle is not None and uncle.red:
                uncle.red = xp.red = False
                xpp.red = True
                x = xpp
                continue
            if x is xp.right:
                x = xp
                root = _rotate_left(root, x)
                xp = x.parent
                xpp = xp.parent if xp is not None else None
            if xp is not None:
                xp.red = False
                if xpp is not None:
                    xpp.red = True
                    root = _rotate_right(root, xpp)
        else:
            uncle = xpp.left
            if uncle is not None and uncle.red:
                uncle.red = xp.red = False
                xpp.red = True
                x = xpp
                continue
            if x is xp.left:
                x = xp
                root = _rotate_right(root, x)
                xp = x.parent
                xpp = xp.parent if xp is not None else None
            if xp is not None:
                xp.red = False
                if xpp is not None:
                    xpp.red = True
                    root = _rotate_left(root, xpp)


def _tree_attach(root: _TreeNode, x: _TreeNode) -> tuple[_TreeNode, _TreeNode]:
    """Descends by hash (distinct Integers have distinct spread hashes) and links ``x``.

    Returns:
        The new root after balancing, and ``x``'s parent (Java links ``x`` after it in the chain).
    """
    p = root
    while True:
        go_left = p.hash > x.hash
        child = p.left if go_left else p.right
        if child is None:
            x.parent = p
            if go_left:
                p.left = x
            else:
                p.right = x
            return _balance_insertion(root, x), p
        p = child


@dataclass
class _Bin:
    """One table slot: the ``next`` chain (iteration order) and, once treeified, the tree root."""

    chain: list[_TreeNode] = field(default_factory=list)
    root: _TreeNode | None = None

    def treeify(self) -> None:
        """``TreeNode.treeify``: builds the tree in chain order, then ``moveRootToFront``."""
        root: _TreeNode | None = None
        for node in self.chain:
            node.parent = node.left = node.right = None
            if root is None:
                node.red = False
                root = node
            else:
                root, _ = _tree_attach(root, node)
        self.root = root
        self._move_root_to_front()

    def put_tree(self, node: _TreeNode) -> None:
        """``TreeNode.putTreeVal`` for a new key: chain position right after its tree parent."""
        assert self.root is not None
        self.root, parent = _tree_attach(self.root, node)
        self.chain.insert(self.chain.index(parent) + 1, node)
        self._move_root_to_front()

    def _move_root_to_front(self) -> None:
        assert self.root is not None
        if self.chain[0] is not self.root:
            self.chain.remove(self.root)
            self.chain.insert(0, self.root)


class _JavaIntHashSet:
    """Simulates ``new HashSet<Integer>()`` (a default ``HashMap``) to learn its iteration order."""

    def __init__(self) -> None:
        self._capacity = 16
        self._threshold = 12
        self._size = 0
        self._bins: dict[int, _Bin] = {}
        self._keys: set[int] = set()

    def add(self, key: int) -> None:
        """``HashMap.putVal`` for a key that may already be present."""
        if key in self._keys:
            return
        self._keys.add(key)
        spread = _java_spread(key)
        node = _TreeNode(key, to_int32(spread))
        index = spread & (self._capacity - 1)
        slot = self._bins.setdefault(index, _Bin())
        if slot.root is not None:
            slot.put_tree(node)
        else:
            slot.chain.append(node)
            if len(slot.chain) > _TREEIFY_THRESHOLD:
                self._treeify_bin(index)
        self._size += 1
        if self._size > self._threshold:
            self._resize()

    def _treeify_bin(self, index: int) -> None:
        if self._capacity < _MIN_TREEIFY_CAPACITY:
            self._resize()
        else:
            self._bins[index].treeify()

    def _resize(self) -> None:
        """``HashMap.resize``: each bin splits into lo/hi keeping chain order; trees re-treeify."""
        old_capacity = self._capacity
        self._capacity *= 2
        self._threshold *= 2
        bins: dict[int, _Bin] = {}
        for index, slot in self._bins.items():
            lo = [n for n in slot.chain if not (n.hash & old_capacity)]
            hi = [n for n in slot.chain if n.hash & old_capacity]
            for target, part, other in ((index, lo, hi), (index + old_capacity, hi, lo)):
                if part:
                    bins[target] = self._split_part(slot, part, bool(other))
        self._bins = bins

    @staticmethod
    def _split_part(slot: _Bin, part: list[_TreeNode], split_happened: bool) -> _Bin:
        """``TreeNode.split`` for one half (plain bins just keep their order)."""
        if slot.root is None or len(part) <= _UNTREEIFY_THRESHOLD:
            return _Bin(chain=part)
        if not split_happened:
            return slot
        new_bin = _Bin(chain=part)
        new_bin.treeify()
        return new_bin

    def iteration_order(self) -> list[int]:
        """Keys in the order ``HashSet.iterator()`` returns them."""
        return [node.key for index in sorted(self._bins) for node in self._bins[index].chain]


def java_hash_set_order(keys: Iterable[int]) -> list[int]:
    """Iteration order of a default ``HashSet<Integer>`` (or ``HashMap<Integer, V>`` keys).

    Args:
        keys: Java ``int`` values in the order they are added (repeats are ignored, as by ``add``).

    Returns:
        The distinct keys in Java's iteration order, including the effects of resizing and of
        bins that Java converts to red-black trees (9+ colliding keys in a table of 64+).
    """
    simulated = _JavaIntHashSet()
    for key in keys:
        simulated.add(key)
    return simulated.iteration_order()


# --- Scala 2.13 collections ----------------------------------------------------------------------


def scala_improve(hash_code: int) -> int:
    """``scala.collection.Hashing.improve``: the hash spreading of immutable HashSet/HashMap (CHAMP)."""
    h = hash_code & _MASK32
    h = (h + (~(h << 9) & _MASK32)) & _MASK32
    h ^= h >> 14
    h = (h + (h << 4)) & _MASK32
    return h ^ (h >> 10)


def _champ_order(items: list[T], improved: Callable[[T], int], shift: int) -> list[T]:
    """Pre-order walk of a CHAMP trie: a node's inline entries by 5-bit fragment, then its subnodes."""
    if len(items) <= 1 or shift >= 32:
        return items  # shift >= 32: a hash-collision node, which keeps insertion order
    groups: dict[int, list[T]] = {}
    for item in items:
        groups.setdefault((improved(item) >> shift) & 31, []).append(item)
    ordered = [group[0] for _, group in sorted(groups.items()) if len(group) == 1]
    for _, group in sorted(groups.items()):
        if len(group) > 1:
            ordered += _champ_order(group, improved, shift + 5)
    return ordered


def scala_set_order(
    elements: Iterable[T],
    hash_code: Callable[[T], int],
    *,
    hashed: bool | None = None,
) -> list[T]:
    """Iteration order of a Scala 2.13 immutable ``Set`` (also immutable ``Map`` keys).

    Up to four elements Scala uses ``Set1``..``Set4``, which keep insertion order; from five on a
    CHAMP ``HashSet``, whose order depends only on the elements' hashes. A ``HashSet`` stays a
    ``HashSet`` when ``filter``/``--`` shrink it, so pass ``hashed=True`` for such a result.

    Args:
        elements: in insertion order (repeats ignored).
        hash_code: the element's ``##`` (``int`` itself for Int, ``hashCode`` for String).
        hashed: force (True) or forbid (False) the HashSet layout; default: by size.
    """
    distinct = list(dict.fromkeys(elements))
    use_hash = len(distinct) > 4 if hashed is None else hashed
    if not use_hash:
        return distinct
    return _champ_order(distinct, lambda e: scala_improve(hash_code(e)), 0)


def scala_int_set_order(values: Iterable[int], *, hashed: bool | None = None) -> list[int]:
    """:func:`scala_set_order` for ``Set[Int]`` / ``Map[Int, _]`` keys."""
    return scala_set_order(values, lambda v: v, hashed=hashed)


def scala_string_set_order(values: Iterable[str], *, hashed: bool | None = None) -> list[str]:
    """:func:`scala_set_order` for ``Set[String]``."""
    return scala_set_order(values, java_string_hash, hashed=hashed)


def scala_mutable_hash_map_order(keys: Sequence[int]) -> list[int]:
    """Key order of a Scala 2.13 ``mutable.HashMap[Int, _]`` filled with ``keys`` in order.

    The table starts at 16 slots and doubles when ``size + 1 >= 0.75 * slots``; a slot is
    ``h ^ (h >>> 16)`` masked, and each slot's list is kept sorted by that (signed) hash.
    """
    distinct = list(dict.fromkeys(keys))
    capacity = 16
    for size in range(len(distinct)):
        if size + 1 >= int(capacity * 0.75):
            capacity *= 2

    def slot_then_hash(key: int) -> tuple[int, int]:
        spread = _java_spread(key)
        return spread & (capacity - 1), to_int32(spread)

    return sorted(distinct, key=slot_then_hash)
