//! Layouts, one case each: the input, and what the formatter makes of it, which it must then
//! leave alone.

use super::{format, FmtError, Kind};

#[track_caller]
fn check(input: &str, want: &str) {
    let got = format("test.rules", input, Kind::of_text(input)).expect("formats");
    assert_eq!(got, want, "formatting\n{input}");
    let again = format("test.rules", &got, Kind::of_text(&got)).expect("formats again");
    assert_eq!(again, got, "formatting twice changes it");
}

#[test]
fn spaces_around_operators_after_commas_and_none_inside_brackets() {
    check(
        "def f( a:int,b :int )=max( a+b*2,-a )  %3\n",
        "def f(a: int, b: int) = max(a + b * 2, -a) % 3\n",
    );
    check(
        "var x : -3..3=- 2\nvar y[ Player ]:0 .. 9\n",
        "var x: -3..3 = -2\nvar y[Player]: 0..9\n",
    );
    check(
        "flow{ x-=1 y+=- 1 z=a- -b if not(a==b)and c!=d{ } }\n",
        "flow { x -= 1 y += -1 z = a - -b if not (a == b) and c != d { } }\n",
    );
}

#[test]
fn calls_and_indexes_stick_to_their_names_but_keywords_keep_the_authors_space() {
    check(
        "flow { deal (if n == 2 then 9 else 7) from deck to hand [p] turn next (p) { } }\n",
        "flow { deal (if n == 2 then 9 else 7) from deck to hand[p] turn next(p) { } }\n",
    );
    check("score (p) = points [p]\n", "score (p) = points[p]\n");
    check(
        "def f(x: int) = count(c in [1,2])\n",
        "def f(x: int) = count(c in [1, 2])\n",
    );
}

#[test]
fn blocks_that_span_lines_open_at_the_line_end_and_close_on_their_own_line() {
    check(
        "flow { let p = seat(0)\n  repeat { turn p { choose { play } }\n p = next(p) } }\n",
        "flow {\n    let p = seat(0)\n    repeat {\n        turn p { choose { play } }\n        p = next(p)\n    }\n}\n",
    );
    check(
        "action a()\n{\n    x = 1\n}\n",
        "action a() {\n    x = 1\n}\n",
    );
    check(
        "flow {\n    if a {\n        x = 1\n    }\n    else if b { x = 2 }\n    else {\n        x = 3 }\n}\n",
        "flow {\n    if a {\n        x = 1\n    } else if b { x = 2 } else {\n        x = 3\n    }\n}\n",
    );
    check("flow {}\nsetup {\n}\n", "flow { }\nsetup {\n}\n");
}

#[test]
fn nested_blocks_are_indented_four_spaces_a_level() {
    check(
        "flow {\nrepeat {\nfor p in players {\nturn p {\nchoose { place }\n}\n}\n}\n}\n",
        "flow {\n    repeat {\n        for p in players {\n            turn p {\n                choose { place }\n            }\n        }\n    }\n}\n",
    );
}

#[test]
fn comments_keep_their_text_and_their_column() {
    // At a line end: the column stays while the code leaves room, else one space.
    check(
        "players 2            // two\nconst HAND   =   8    // eight  \n",
        "players 2            // two\nconst HAND = 8        // eight\n",
    );
    check(
        "flow {let x=averyveryverylongname+1 // c\n}\n",
        "flow {\n    let x = averyveryverylongname + 1 // c\n}\n",
    );
    // Alone on a line: indented like the code that follows, inside the block it is in.
    check(
        "flow {\n// about x\n      x = 1\n  //   the end,  as written\n}\n//last\n",
        "flow {\n    // about x\n    x = 1\n    //   the end,  as written\n}\n//last\n",
    );
    // On the line of `{`: stays there.
    check(
        "action a() { // why\n x = 1 }\n",
        "action a() { // why\n    x = 1\n}\n",
    );
    // Between `}` and `else`: the `else` stays on its line.
    check(
        "flow {\n    if a {\n    }\n    // otherwise\n    else {\n    }\n}\n",
        "flow {\n    if a {\n    }\n    // otherwise\n    else {\n    }\n}\n",
    );
}

#[test]
fn long_expressions_keep_the_authors_breaks_with_one_continuation_indent() {
    check(
        "def suit_score(p: Player, s: Suit) =\nif count(played[p, s]) == 0 then 0\n        else if x >= 5 then 1\n  else 2\n",
        "def suit_score(p: Player, s: Suit) =\n    if count(played[p, s]) == 0 then 0\n    else if x >= 5 then 1\n    else 2\n",
    );
    check(
        "action shift(from in grid, to in paths(s in grid, from, 3 where empty(cell[s])))\nwhere not empty(cell[from])\n{\nmove top(cell[from]) to cell[to]\n}\n",
        "action shift(from in grid, to in paths(s in grid, from, 3 where empty(cell[s])))\n    where not empty(cell[from]) {\n    move top(cell[from]) to cell[to]\n}\n",
    );
    check(
        "def m(p: Player) = max(\na,\n   b +\nc\n)\n",
        "def m(p: Player) = max(\n    a,\n    b +\n    c\n)\n",
    );
    check(
        "set s(a: Card, b: Card) where a.x == 1\n and b.x == 2 = 3\n",
        "set s(a: Card, b: Card) where a.x == 1\n    and b.x == 2 = 3\n",
    );
}

#[test]
fn a_comma_at_a_line_end_continues_a_statement_but_not_a_list() {
    check(
        "enum Card {\n    a, b,\n    c\n}\nflow {\n    choose each p in players,\n card in hand[p] { }\n}\n",
        "enum Card {\n    a, b,\n    c\n}\nflow {\n    choose each p in players,\n        card in hand[p] { }\n}\n",
    );
}

#[test]
fn strings_are_kept_as_written_braces_and_all() {
    check(
        "components Card in deck {\n\"{suit}-{rank}\" for suit in Suit, rank in 2..10 {suit=suit,rank=rank}\n  \"} { // \" { }\n}\n",
        "components Card in deck {\n    \"{suit}-{rank}\" for suit in Suit, rank in 2..10 { suit = suit, rank = rank }\n    \"} { // \" { }\n}\n",
    );
}

#[test]
fn the_rows_of_a_table_keep_their_alignment() {
    check(
        "components Card in deck {\n    \"a\"      { rank = 1 }   // one\n    \"bcd\"    {rank=2}       // two\n}\n",
        "components Card in deck {\n    \"a\"      { rank = 1 }   // one\n    \"bcd\"    { rank = 2 }   // two\n}\n",
    );
}

#[test]
fn at_most_one_blank_line_and_none_at_the_edges_of_blocks_or_the_file() {
    check(
        "\n\n// head\n\n\n\ngame \"G\"\nflow {\n\n    x = 1\n\n\n    y = 2\n\n}\n\n\n",
        "// head\n\ngame \"G\"\nflow {\n    x = 1\n\n    y = 2\n}\n",
    );
    check("", "");
    check("\n\n", "");
}

#[test]
fn scenario_files_are_laid_out_alike() {
    check(
        "rules \"../x.rules\"\nscenario \"a { b }\" {\nplayers 2\n  setup { move named(\"red-5\") to played[me,red] }\n expect count( pile[red] )==1\n}\n",
        "rules \"../x.rules\"\nscenario \"a { b }\" {\n    players 2\n    setup { move named(\"red-5\") to played[me, red] }\n    expect count(pile[red]) == 1\n}\n",
    );
}

#[test]
fn a_file_that_does_not_parse_is_refused() {
    for bad in [
        "flow { x = }",
        "flow {",
        "players 2 @",
        "rules \"x\" scenario {",
    ] {
        let got = format("bad.rules", bad, Kind::of_text(bad));
        assert!(matches!(got, Err(FmtError::Syntax(_))), "{bad:?}: {got:?}");
    }
}

#[test]
fn unknown_characters_and_words_keep_the_authors_spacing() {
    // The tokens of syntax the formatter does not know keep their spacing (0 or 1 space);
    // only the file must parse, which this checks without a grammar that knows them.
    assert_eq!(super::layout("a ;b@ c"), "a ;b@ c\n");
}

// Issue 38: a `present` section keeps a line per item, one space between words, a comma
// and a space between names, and `Enum.value` joined.
#[test]
fn a_presentation_keeps_its_lines_and_joins_enum_values() {
    check(
        "present {\n  value Kind . king   glyph \"♚\" colour red\n    piece kind ,colour\n  component Card shows cost,points\n}\n",
        "present {\n    value Kind.king glyph \"♚\" colour red\n    piece kind, colour\n    component Card shows cost, points\n}\n",
    );
}
