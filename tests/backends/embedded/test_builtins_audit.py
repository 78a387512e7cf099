"""Audit of builtins no reference task exercises, pinned to Lean 4 (v4.24) on their edge cases.

Each row evaluates one Lean expression through the whole engine (parse, elaborate, compile, run)
and compares ``repr`` of the value with what Lean's definition gives. The comment above each group
names the declaration (Init/... in leanprover/lean4, Mathlib where it says so) the values follow;
where a definition changed across Lean versions the row says which version it pins.
"""

from __future__ import annotations

import pytest

from veriscale.backends.embedded.backend import call_entry
from veriscale.backends.embedded.builtins import repr_value
from veriscale.backends.embedded.program import Program
from veriscale.lean.values import Unsupported


def lean_eval(expr: str, ty: str) -> str:
    """``repr`` of ``expr : ty`` as the engine computes it (what ``#eval`` would print)."""
    src = f"def f (u : Nat) : {ty} := {expr}"
    return repr_value(call_entry(Program(src), "f", {"u": 0}, None))


# (expression, type, Lean's value as `repr` prints it)
Row = tuple[str, str, str]

# ---------------------------------------------------------------------------------------------
# String <-> number (Init/Data/String/Basic.lean, Init/Data/ToString/Basic.lean, v4.24):
#   isNat s = !s.isEmpty && s.all (·.isDigit); toNat? s = if s.isNat then some (foldl ...) else none
#   toInt? s = if s.get 0 = '-' then (s.toSubstring.drop 1).toNat? negated else s.toNat?
#   Substring.isNat refuses "" since v4.20 (lean4#8067); `_` separators only from v4.27 (lean4#11541);
#   the docstrings list `"+587".isInt = false`. toNat!/toInt! panic (value: default 0) otherwise.
STRING_NUMBERS: list[Row] = [
    ('"+1".toInt?', "Option Int", "none"),
    ('"+5".isInt', "Bool", "false"),
    ('"-0".toInt?', "Option Int", "some 0"),
    ('"-".toInt?', "Option Int", "none"),
    ('"-".isInt', "Bool", "false"),
    ('"".toInt?', "Option Int", "none"),
    ('"--1".toInt?', "Option Int", "none"),
    ('"-12".toInt?', "Option Int", "some (-12)"),
    ('"007".toNat?', "Option Nat", "some 7"),
    ('"1_000".toNat?', "Option Nat", "none"),
    ('"1_000".isNat', "Bool", "false"),
    ('"-1_0".toInt?', "Option Int", "none"),
    ('" 5".toNat?', "Option Nat", "none"),
    ('"٣".toNat?', "Option Nat", "none"),  # Char.isDigit is ASCII '0'..'9'
    ('"".isNat', "Bool", "false"),
    ('"+1".toInt!', "Int", "0"),
    ('"1_0".toNat!', "Nat", "0"),
    ('"-7".toInt!', "Int", "-7"),
    ("toString (-5 : Int)", "String", '"-5"'),
    ("Int.repr (-5)", "String", '"-5"'),
    ("Nat.repr 0", "String", '"0"'),
    ('s!"{(-5 : Int)}"', "String", '"-5"'),
]

# ---------------------------------------------------------------------------------------------
# String and Char (Init/Data/String/Basic.lean, Init/Data/Char/Basic.lean): characters are Unicode
# scalar values; the classifiers and case maps are ASCII-only (`toUpper c = if c.isLower then
# Char.ofNat (c.toNat - 32) else c`); isWhitespace is exactly ' ', '\t', '\r', '\n'; `get` out of
# range (front/back of "") is default 'A'. splitOnAux restarts at `s.next (i - j)` after a partial
# match (fixed in v4.8, lean4#3832); `splitOn s ""` is `[s]`; split keeps empty pieces.
STRINGS: list[Row] = [
    ('"héllo wörld".toUpper', "String", '"HéLLO WöRLD"'),
    ('"ÀB".toLower', "String", '"Àb"'),
    ("'é'.isAlpha", "Bool", "false"),
    ("'é'.isLower", "Bool", "false"),
    ("'é'.toUpper", "Char", "'é'"),
    ("'_'.isAlphanum", "Bool", "false"),
    ("'\\x0b'.isWhitespace", "Bool", "false"),
    ("'\\t'.isWhitespace", "Bool", "true"),
    ('"ßa".capitalize', "String", '"ßa"'),
    ('"ABC".decapitalize', "String", '"aBC"'),
    ('"\\t a b \\n".trim', "String", '"a b"'),
    ('"\\x0ba\\x0b".trim.length', "Nat", "3"),
    ('"  a b ".trimLeft', "String", '"a b "'),
    ('"  a b ".trimRight', "String", '"  a b"'),
    ('"héllo".drop 2', "String", '"llo"'),
    ('"héllo".take 2', "String", '"hé"'),
    ('"héllo".takeRight 2', "String", '"lo"'),
    ('"abc".dropRight 5', "String", '""'),
    ('"日本語".length', "Nat", "3"),
    ('"aaa".splitOn "aa"', "List String", '["", "a"]'),
    ('"ababcab".splitOn "abc"', "List String", '["ab", "ab"]'),
    ('"abcab".splitOn "abc"', "List String", '["", "ab"]'),
    ('"a,b,".splitOn ","', "List String", '["a", "b", ""]'),
    ('"".splitOn ","', "List String", '[""]'),
    ('"abc".splitOn ""', "List String", '["abc"]'),
    ('"a b  c".splitOn', "List String", '["a", "b", "", "c"]'),
    ('",a,".split (· == \',\')', "List String", '["", "a", ""]'),
    ('"".split (· == \',\')', "List String", '[""]'),
    ('"aaa".replace "aa" "b"', "String", '"ba"'),
    ('"abc".replace "" "x"', "String", '"abc"'),
    ('"".front', "Char", "'A'"),
    ('"".back', "Char", "'A'"),
    ("'€'.toNat", "Nat", "8364"),
    ("('€'.toUInt8).toNat", "Nat", "172"),  # c.val.toUInt8 wraps modulo 2^8
    ("Char.ofNat 55296", "Char", "'\\x00'"),  # a surrogate is no scalar value: '\0'
    ('"abc".isPrefixOf "ab"', "Bool", "false"),
    ('"abc".endsWith ""', "Bool", "true"),
    ('"abc".dropRightWhile (· == \'c\')', "String", '"ab"'),
    ('"abc".takeRightWhile (· != \'a\')', "String", '"bc"'),
    ('"x".pushn \'y\' 3', "String", '"xyyy"'),
    ('", ".intercalate []', "String", '""'),
    ('compare "b" "ab"', "Ordering", "Ordering.gt"),
    ('"Z" < "a"', "Bool", "true"),
]

# ---------------------------------------------------------------------------------------------
# Nat and Int (Init/Prelude.lean, Init/Data/Int/DivMod/Basic.lean, Init/Data/Nat/Basic.lean,
# Init/Data/Repr.lean for toDigits; Mathlib Nat.log/Nat.digits/Nat.dist). `/`, `%` on Int are
# ediv/emod; x / 0 = 0 and x % 0 = x for every convention; bmod x m: r := x % m, r if r < (m+1)/2
# else r - m; toDigitsCore with fuel n+1 and digitChar ('*' past 'f').
NUMBERS: list[Row] = [
    ("(7 : Int) / (-2)", "Int", "-3"),
    ("(-7 : Int) / 2", "Int", "-4"),
    ("(7 : Int) % (-2)", "Int", "1"),
    ("(-7 : Int) % (-2)", "Int", "1"),
    ("(-7 : Int) / 0", "Int", "0"),
    ("(-7 : Int) % 0", "Int", "-7"),
    ("Int.tdiv (-7) 2", "Int", "-3"),
    ("Int.tmod (-7) 2", "Int", "-1"),
    ("Int.fdiv 7 (-2)", "Int", "-4"),
    ("Int.fmod 7 (-2)", "Int", "-1"),
    ("Int.fmod (-7) 0", "Int", "-7"),
    ("Int.bmod 6 4", "Int", "-2"),
    ("Int.bmod (-5) 4", "Int", "-1"),
    ("Int.bmod 7 0", "Int", "7"),
    ("Int.bmod 3 1", "Int", "0"),
    ("(-5 : Int).toNat", "Nat", "0"),
    ("(-5 : Int).natAbs", "Nat", "5"),
    ("(-5 : Int).sign", "Int", "-1"),
    ("Int.gcd (-4) 6", "Nat", "2"),
    ("Int.lcm (-4) 6", "Nat", "12"),
    ("(3 : Nat) - 5", "Nat", "0"),
    ("(3 : Nat) % 0", "Nat", "3"),
    ("Nat.pred 0", "Nat", "0"),
    ("Nat.log2 0", "Nat", "0"),
    ("Nat.sqrt 15", "Nat", "3"),
    ("Nat.log 2 8", "Nat", "3"),
    ("Nat.log 0 8", "Nat", "0"),
    ("Nat.gcd 0 0", "Nat", "0"),
    ("Nat.lcm 0 5", "Nat", "0"),
    ("Nat.toDigits 10 0", "List Char", "['0']"),
    ("Nat.toDigits 16 255", "List Char", "['f', 'f']"),
    ("Nat.toDigits 0 5", "List Char", "['5']"),  # n % 0 = n, n / 0 = 0
    ("Nat.toDigits 1 2", "List Char", "['0', '0', '0']"),  # runs out of its n+1 fuel
    ("(5 : Nat).toDigits 2", "List Char", "['2']"),  # field notation: base := 5, n := 2
    ("Nat.digits 10 0", "List Nat", "[]"),
    ("Nat.dist 3 7", "Nat", "4"),
    ("Nat.testBit 5 1", "Bool", "false"),
    ("Nat.choose 5 7", "Nat", "0"),
    ("(0 : UInt8) - 1", "UInt8", "255"),
    ("(300 : Nat).toUInt8", "UInt8", "44"),
    ("(3 : UInt8) / 0", "UInt8", "0"),
]

# ---------------------------------------------------------------------------------------------
# List (Init/Data/List/Basic.lean; Mathlib for insertionSort, Sorted; Batteries for diff):
# zip/zipWith stop at the shorter list; iota n = [n, ..., 1]; range' s n step; eraseDups keeps the
# first occurrence, eraseReps the first of each run; splitBy R compares each element with the one
# before it; lookup a ((k, b) :: _) tests `a == k`; rotateLeft/rotateRight take n % length;
# set/modify/eraseIdx out of range leave the list; head!/getLast! of [] are default; tail! of [] is [].
LISTS: list[Row] = [
    ("List.iota 3", "List Nat", "[3, 2, 1]"),
    ("List.range' 2 3 4", "List Nat", "[2, 6, 10]"),
    ("List.range' 5 3 0", "List Nat", "[5, 5, 5]"),
    ('[1,2,3].zip ["a"]', "List (Nat × String)", '[(1, "a")]'),
    ("List.zipWith (· + ·) [1,2,3] [10,20]", "List Nat", "[11, 22]"),
    ('[(1,"a"),(2,"b")].unzip', "List Nat × List String", '([1, 2], ["a", "b"])'),
    ("[1,2,3,4].partition (· > 2)", "List Nat × List Nat", "([3, 4], [1, 2])"),
    ("[1,2,1,3,2].eraseDups", "List Nat", "[1, 2, 3]"),
    ("[1,1,2,2,1].eraseReps", "List Nat", "[1, 2, 1]"),
    ("[1,2,4,5,7].splitBy (fun a b => b == a + 1)", "List (List Nat)", "[[1, 2], [4, 5], [7]]"),
    ('[(1,"a"),(1,"b")].lookup 1', "Option String", 'some "a"'),
    ("[1,2,3].findSome? (fun x => if x > 1 then some (x*10) else none)", "Option Nat", "some 20"),
    ("[1,2,3].find? (· > 5)", "Option Nat", "none"),
    ("[3,1,2].insertionSort (· ≤ ·)", "List Nat", "[1, 2, 3]"),
    ("[1,2,3].rotateLeft 4", "List Nat", "[2, 3, 1]"),
    ("[1,2,3].rotateRight 4", "List Nat", "[3, 1, 2]"),
    ("([] : List Nat).dropLast", "List Nat", "[]"),
    ("([] : List Nat).getLast!", "Nat", "0"),
    ("([] : List Nat).head!", "Nat", "0"),
    ("([] : List Nat).tail!", "List Nat", "[]"),
    ("([] : List Nat).tail?", "Option (List Nat)", "none"),
    ("[1,2,3].set 5 9", "List Nat", "[1, 2, 3]"),
    ("[1,2,3].modify 1 (· * 10)", "List Nat", "[1, 20, 3]"),  # (l) (i) (f) since v4.19
    ("[1,2,3].eraseIdx 7", "List Nat", "[1, 2, 3]"),
    ("[1,2,3].splitAt 5", "List Nat × List Nat", "([1, 2, 3], [])"),
    ("[1,2,1].replace 1 9", "List Nat", "[9, 2, 1]"),
    ("[1,2,3].removeAll [1,3]", "List Nat", "[2]"),
    ("[1,2].insert 3", "List Nat", "[3, 1, 2]"),
    ("[3,1,2].union [1,4]", "List Nat", "[3, 2, 1, 4]"),  # foldr .insert l₂ l₁
    ("[1,2,3,2].inter [2]", "List Nat", "[2, 2]"),
    ("[1,2,3].intersperse 0", "List Nat", "[1, 0, 2, 0, 3]"),
    ("[1,3].isSublist [1,2,3]", "Bool", "true"),
    ("[2,3].isSuffixOf [1,2,3]", "Bool", "true"),
    ("[1,2,3].idxOf 4", "Nat", "3"),
    ("[1,2,3].findIdx (· > 5)", "Nat", "3"),
    ("[some 1, none, some 3].reduceOption", "List Nat", "[1, 3]"),
    ("[1,2,3].extract 2 1", "List Nat", "[]"),
    ("([] : List Int).min?", "Option Int", "none"),
    ("[1,2,3].mapIdx (fun i x => i + x)", "List Nat", "[1, 3, 5]"),
    ("List.finRange 3", "List (Fin 3)", "[0, 1, 2]"),
    ('toString ["a","b"]', "String", '"[a, b]"'),
    ("toString (some (-1 : Int))", "String", '"(some -1)"'),  # addParenHeuristic: no space
    ("repr (some (-1 : Int))", "String", '"some (-1)"'),
    ('toString ((-1 : Int), "a")', "String", '"(-1, a)"'),
]

# ---------------------------------------------------------------------------------------------
# Array (Init/Data/Array/Basic.lean, v4.24): extract keeps start ≤ i < min stop size;
# swapIfInBounds/eraseIdxIfInBounds/setIfInBounds/modify out of range leave the array;
# eraseIdx! out of range is `panic!`, whose value is default #[]; zipWith takes f first.
ARRAYS: list[Row] = [
    ("#[1,2,3].extract 1 10", "Array Nat", "#[2, 3]"),
    ("#[1,2,3].extract 2 1", "Array Nat", "#[]"),
    ("#[1,2,3].extract 5 7", "Array Nat", "#[]"),
    ("#[1,2,3].swapIfInBounds 0 5", "Array Nat", "#[1, 2, 3]"),
    ("#[1,2,3].eraseIdxIfInBounds 5", "Array Nat", "#[1, 2, 3]"),
    ("#[1,2,3].eraseIdx! 5", "Array Nat", "#[]"),
    ("#[1,2,3].setIfInBounds 5 9", "Array Nat", "#[1, 2, 3]"),
    ("#[1,2,3].modify 5 (· + 1)", "Array Nat", "#[1, 2, 3]"),
    ("#[1,2,3].zipWith (· + ·) #[10,20]", "Array Nat", "#[11, 22]"),
    ("(#[] : Array Nat).back!", "Nat", "0"),
    ("#[1,2,3].back", "Nat", "3"),
    ("(#[] : Array Nat).pop", "Array Nat", "#[]"),
    ("#[1,2,3].toListRev", "List Nat", "[3, 2, 1]"),
    ("#[3,1,2].insertionSort (· > ·)", "Array Nat", "#[3, 2, 1]"),
    ("#[1,2,3].take 5", "Array Nat", "#[1, 2, 3]"),
    ("#[1,2,3].foldl (· + ·) 0 1", "Nat", "5"),
    ("#[1,2,3].filterMap (fun x => if x > 1 then some x else none)", "Array Nat", "#[2, 3]"),
    ("#[1,2,3,4].partition (· > 2)", "Array Nat × Array Nat", "(#[3, 4], #[1, 2])"),
]

# ---------------------------------------------------------------------------------------------
# Option, Ordering (Init/Data/Option/Basic.lean, Init/Data/Ord.lean): get! of none is default;
# orElse calls its thunk only on none; Ordering.then keeps a non-eq first result.
OPTIONS: list[Row] = [
    ("(none : Option String).get!", "String", '""'),
    ("(none : Option Nat).getD 7", "Nat", "7"),
    ("(none : Option Nat).orElse (fun _ => some 2)", "Option Nat", "some 2"),
    ("(some 3).filter (· > 5)", "Option Nat", "none"),
    ("(none : Option Nat).all (· > 5)", "Bool", "true"),
    ("(Ordering.lt).then Ordering.gt", "Ordering", "Ordering.lt"),
    ("(Ordering.eq).then Ordering.lt", "Ordering", "Ordering.lt"),
    ("(Ordering.gt).swap", "Ordering", "Ordering.lt"),
]

# ---------------------------------------------------------------------------------------------
# Std.HashMap / Std.HashSet (Std/Data/HashMap/Basic.lean): insertIfNew keeps a present key's value;
# insertMany and ofList insert in order, so a later pair wins; modify and alter on an absent key
# change nothing; `m[k]!` of an absent key is default; HashSet.insertMany counts each element once.
HASHMAPS: list[Row] = [
    ("((∅ : Std.HashMap Nat Nat).insert 1 10 |>.insertIfNew 1 20)[1]?", "Option Nat", "some 10"),
    ("((∅ : Std.HashMap Nat Nat).insertMany [(1, 10), (1, 20)])[1]?", "Option Nat", "some 20"),
    ('(Std.HashMap.ofList [(1, "a"), (1, "b")])[1]?', "Option String", 'some "b"'),
    ("((∅ : Std.HashMap Nat Nat).insert 1 10 |>.modify 1 (· + 1))[1]!", "Nat", "11"),
    ("((∅ : Std.HashMap Nat Nat).insert 1 10 |>.modify 2 (· + 1)).size", "Nat", "1"),
    ("(∅ : Std.HashMap Nat Nat)[3]!", "Nat", "0"),
    ("(∅ : Std.HashMap Nat Nat).getD 3 7", "Nat", "7"),
    ("((Std.HashMap.ofList [(1, 5)]).alter 1 (fun _ => none)).size", "Nat", "0"),
    ("((Std.HashMap.emptyWithCapacity 8 : Std.HashMap Nat Nat).insert 2 5).keysArray", "Array Nat", "#[2]"),
    ("((∅ : Std.HashSet Nat).insertMany [3, 3, 1]).size", "Nat", "2"),
]


@pytest.mark.parametrize(
    ("expr", "ty", "expected"),
    STRING_NUMBERS + STRINGS + NUMBERS + LISTS + ARRAYS + OPTIONS + HASHMAPS,
)
def test_builtin_agrees_with_lean_on_edge_cases(expr: str, ty: str, expected: str) -> None:
    assert lean_eval(expr, ty) == expected


def test_array_back_of_an_empty_array_is_not_a_default() -> None:
    """`Array.back (xs) (h : 0 < xs.size := by get_elem_tactic)` (v4.18, lean4#7059): Lean accepts
    no program where it meets `#[]`, so the engine refuses rather than answering `back!`'s default."""
    with pytest.raises(Unsupported):
        lean_eval("(#[] : Array Nat).back", "Nat")


# ---------------------------------------------------------------------------------------------
# Numbers of more than 4,300 digits: Lean prints and parses any Nat; CPython's `str`/`int` refuse
# them unless converted piecewise.


def test_huge_numbers_print_and_parse_like_lean() -> None:
    assert lean_eval("(toString (10 ^ 5000)).length", "Nat") == "5001"
    assert lean_eval('s!"{(2 : Nat) ^ 20000}".length', "Nat") == "6021"  # ⌊20000·log₁₀2⌋ + 1
    assert lean_eval("(toString (-((10 : Int) ^ 4400))).take 3", "String") == '"-10"'
    assert lean_eval("Nat.repr (10 ^ 4400 + 7) |>.takeRight 3", "String") == '"007"'
    # 5000 sevens: the value is (10^5000 - 1) / 9 * 7, whose last digits are 777
    assert lean_eval("((String.mk (List.replicate 5000 '7')).toNat?.getD 0) % 1000", "Nat") == "777"
    assert lean_eval("(String.mk ('-' :: List.replicate 4500 '1')).toInt!.natAbs % 100", "Nat") == "11"


def test_decimal_matches_str_across_the_split_point() -> None:
    from veriscale.lean.printing import decimal

    for n in (0, 7, -7, 10**3999, 10**4300 - 1, 10**4300, -(10**4301) + 12345, 2**20000, 3**9000):
        expected = str(n) if n.bit_length() < 12_000 else None
        text = decimal(n)
        if expected is not None:
            assert text == expected
        # the digits read back as the same number (int() of ≤ 4,000-digit pieces)
        sign = -1 if text.startswith("-") else 1
        digits = text.lstrip("-")
        assert digits == digits.lstrip("0") or digits == "0"
        value = 0
        for k in range(0, len(digits), 1000):
            chunk = digits[k : k + 1000]
            value = value * 10 ** len(chunk) + int(chunk)
        assert sign * value == n
