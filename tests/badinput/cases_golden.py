"""Bad golden files, read through `perfgate_read golden FILE` (golden/golden.h)."""
import os

from badinput import Case, end_of, position_of


loc = position_of


def golden(values='"a": {"value": 1, "kind": "exact"}', extra=""):
    return '{\n  "schema_version": 1,%s\n  "values": {\n    %s\n  }\n}\n' % (extra, values)


GOOD = golden()


def case(name, text, code, at=None, needle=None, nth=0, why="", exit=2, **kw):
    if needle is not None:
        at = loc(text, needle, nth)
    return Case(name, ["golden", "{g.json}"], files={"g.json": text}, exit=exit, code=code, at=at,
                program="perfgate_read", why=why, **kw)


def schema(name, text, needle, why, nth=0):
    return case(name, text, "golden.bad_schema", needle=needle, nth=nth, why=why)


KEY = "k" * 1000000
FLAT_BOMB = golden(extra='\n  "context": {"%s": {%s}},' % (KEY, ",".join('"a%d": 1' % i for i in range(200000))))


def first_past_budget(text):
    """The leaf a<i> that the flattening budget (4 bytes per input byte, 1 MiB floor) refuses."""
    left = max(1 << 20, 4 * len(text)) - (len(KEY) + 1)
    for name in sorted("a%d" % i for i in range(200000)):  # keys flatten in sorted order
        if left < len(KEY) + 1 + len(name):
            return name
        left -= len(KEY) + 1 + len(name)


def nested(depth):
    return '{"schema_version": 1, "context": ' + '{"k": ' * depth + '"x"' + '}' * depth + ', "values": {}}'


MANY = 100_000
many_values = ",\n    ".join('"v%d": {"value": %d, "kind": "exact"}' % (i, i) for i in range(MANY))
many_with_dup = many_values + ',\n    "v7": {"value": 7, "kind": "exact"}'

CASES = [
    case("empty", "", "golden.bad_json", at=(1, 1), why="an empty file"),
    case("whitespace_only", "  \n\n ", "golden.bad_json", at=end_of("  \n\n "), why="only whitespace: ends before a value"),
    case("truncated_object", GOOD[:40], "golden.bad_json", at=end_of(GOOD[:40]),
         why="the file stops inside the values object"),
    case("truncated_string", '{"schema_version": 1, "valu', "golden.bad_json", at=(1, 28),
         why="the file stops inside a key"),
    case("trailing_garbage", GOOD + "x", "golden.bad_json", at=(7, 1), why="a second value after the document"),
    case("comment", "// golden\n" + GOOD, "golden.bad_json", at=(1, 1), why="comments are not JSON"),
    case("single_quotes", GOOD.replace('"a"', "'a'"), "golden.bad_json", needle="'a'", why="single-quoted key"),
    case("nan_literal", golden('"a": {"value": NaN, "kind": "exact"}'), "golden.bad_json", needle="NaN",
         why="NaN is not JSON"),
    case("infinity_literal", golden('"a": {"value": -Infinity, "kind": "noisy"}'), "golden.bad_json",
         needle="Infinity", why="Infinity is not JSON"),
    case("leading_zero", golden('"a": {"value": 012, "kind": "exact"}'), "golden.bad_json", at=(4, 22),
         why="a number with a leading zero"),
    case("value_1e999", golden('"a": {"value": 1e999, "kind": "noisy"}'), "golden.bad_json", needle="1e999",
         why="a number beyond double: nlohmann throws out_of_range, which once escaped",
         stderr_has=["number overflow"]),
    case("negative_1e999_in_samples", golden('"a": {"value": 1, "kind": "noisy", "samples": [1, -1e999]}'),
         "golden.bad_json", needle="-1e999", why="an overflowing sample"),
    case("tol_1e400", golden('"a": {"value": 1, "kind": "noisy", "tol": {"rel": 1e400}}'), "golden.bad_json",
         needle="1e400", why="an overflowing tolerance"),
    case("duplicate_root_key", GOOD.replace('"schema_version": 1,', '"schema_version": 1, "schema_version": 1,'),
         "golden.bad_json", needle='"schema_version"', nth=1, why="a key given twice at the root"),
    case("duplicate_value_name", golden('"a": {"value": 1, "kind": "exact"}, "a": {"value": 2, "kind": "exact"}'),
         "golden.bad_json", needle='"a"', nth=1, why="a value given twice: the last once won silently",
         stderr_has=['duplicate key "a" at /values/a']),
    case("duplicate_field", golden('"a": {"value": 1, "value": 2, "kind": "exact"}'), "golden.bad_json",
         needle='"value"', nth=1, why="a field of a value given twice"),
    case("duplicate_in_context", golden(extra='\n  "context": {"os": "a", "os": "b"},'), "golden.bad_json",
         needle='"os"', nth=1, why="a context key given twice"),
    case("duplicate_after_100k_values", golden(many_with_dup), "golden.bad_json",
         needle='"v7": {"value": 7, "kind": "exact"}', nth=1, timeout=20,
         why="the duplicate check was quadratic (100k values took 126 s); now linear"),
    case("context_20000_deep", nested(20000), "golden.too_deep", at=(1, 34 + 6 * 63),
         why="a context nested 20,000 deep overflowed the stack in FlattenContext and dump"),
    case("context_65_deep", nested(64), "golden.too_deep", at=(1, 34 + 6 * 63),
         why="one level beyond the 64 the reader accepts"),
    case("samples_deep_arrays", golden('"a": {"value": 1, "kind": "noisy", "samples": ' + "[" * 5000 + "]" * 5000 + "}"),
         "golden.too_deep", at=None, why="arrays nested 5000 deep in samples"),
    case("bad_utf8_name", golden('"a\xff": {"value": 1, "kind": "exact"}').encode("latin-1"), "golden.bad_json",
         at=(4, 7), why="a value name with an invalid UTF-8 byte"),
    case("bad_utf8_reason", golden('"a": {"value": 1, "kind": "exact", "reason": "\xc3("}').encode("latin-1"),
         "golden.bad_json", at=(4, 51), why="a truncated UTF-8 sequence in a reason"),
    case("nul_byte", GOOD.replace('"a"', '"\0a"').encode(), "golden.bad_json", at=(4, 6),
         why="a raw NUL inside a key"),
    case("root_array", "[1, 2]\n", "golden.bad_schema", at=(1, 1), why="the root is an array"),
    case("root_string", '"golden"', "golden.bad_schema", at=(1, 1), why="the root is a string"),
    schema("missing_schema_version", '{\n  "values": {}\n}\n', "{", "no schema_version"),
    schema("schema_version_string", GOOD.replace('"schema_version": 1', '"schema_version": "1"'),
           '"schema_version"', "schema_version as a string"),
    schema("schema_version_2", GOOD.replace('"schema_version": 1', '"schema_version": 2'),
           '"schema_version"', "an unsupported version"),
    schema("schema_version_float", GOOD.replace('"schema_version": 1', '"schema_version": 1.0'),
           '"schema_version"', "schema_version written as a float"),
    schema("schema_version_u64_max", GOOD.replace('"schema_version": 1', '"schema_version": 18446744073709551617'),
           '"schema_version"', "a version beyond uint64 is a float to nlohmann, not 1"),
    schema("values_missing", '{"schema_version": 1}', "{", "no values object"),
    schema("values_array", '{"schema_version": 1, "values": []}', '"values"', "values as an array"),
    schema("empty_value_name", golden('"": {"value": 1, "kind": "exact"}'), '""', "an empty value name"),
    schema("unknown_root_key", golden(extra='\n  "valus": {},'), '"valus"', "a misspelt root key"),
    schema("unknown_field", golden('"a": {"value": 1, "kind": "exact", "tolerance": 1}'), '"tolerance"',
           "a misspelt tol"),
    schema("unknown_tol_key", golden('"a": {"value": 1, "kind": "noisy", "tol": {"pct": 1}}'), '"pct"',
           "an unknown tolerance"),
    schema("negative_tol", golden('"a": {"value": 1, "kind": "noisy", "tol": {"abs": -1}}'), '"abs"',
           "a negative tolerance"),
    schema("exact_with_rel", golden('"a": {"value": 1, "kind": "exact", "tol": {"rel": 0.1}}'), '"rel"',
           "an exact value with a relative tolerance"),
    schema("bad_kind", golden('"a": {"value": 1, "kind": "fast"}'), '"kind"', "an unknown kind"),
    schema("kind_number", golden('"a": {"value": 1, "kind": 1}'), '"kind"', "kind as a number"),
    schema("bad_dir", golden('"a": {"value": 1, "kind": "exact", "dir": "up"}'), '"dir"', "an unknown direction"),
    schema("gated_string", golden('"a": {"value": 1, "kind": "exact", "gated": "yes"}'), '"gated"',
           "gated as a string"),
    schema("reason_number", golden('"a": {"value": 1, "kind": "exact", "reason": 7}'), '"reason"',
           "reason as a number"),
    schema("samples_object", golden('"a": {"value": 1, "kind": "noisy", "samples": {}}'), '"samples"',
           "samples as an object"),
    schema("sample_string", golden('"a": {"value": 1, "kind": "noisy", "samples": [1, "2"]}'), '"2"',
           "a sample as a string"),
    schema("value_missing", golden('"a": {"kind": "exact"}'), '"a"', "an entry without its value"),
    schema("value_string", golden('"a": {"value": "1", "kind": "exact"}'), '"value"', "a value as a string"),
    schema("value_null", golden('"a": {"value": null, "kind": "exact"}'), '"value"', "a null value"),
    schema("entry_not_object", golden('"a": 5'), '"a"', "an entry that is a number"),
    schema("context_array", golden(extra='\n  "context": ["x"],'), '"context"', "context as an array"),
    case("context_flattens_huge", FLAT_BOMB, "golden.too_large", needle='"%s"' % first_past_budget(FLAT_BOMB),
         timeout=20, why="a 1 MB key over 200k leaves: each leaf stored the key, 2.4 MB flattening to 200 GB"),
    schema("context_collision", golden(extra='\n  "context": {"a": {"b": "1"}, "a/b": "2"},'), '"a/b"',
           "a nested and a flat context key that flatten to one name: one was dropped silently"),
    Case("dir_as_golden", ["golden", "{dir}/sub"], setup=lambda d: os.mkdir(d + "/sub"), code="golden.read_failed",
         at="file", where="sub", program="perfgate_read", why="a directory where the golden should be"),
    Case("fifo_as_golden", ["golden", "{dir}/fifo"], setup=lambda d: os.mkfifo(d + "/fifo"),
         code="golden.read_failed", at="file", where="fifo", program="perfgate_read", timeout=20,
         why="a FIFO would block a reader that opens it"),
    Case("missing_golden", ["golden", "{dir}/none.json"], code="golden.missing", at="file", where="none.json",
         program="perfgate_read", why="no golden file"),
    Case("gzip_garbage", ["golden", "{g.json}"], files={"g.json": b"\x1f\x8b\x08\x00garbage"},
         code="golden.read_failed", at="file", program="perfgate_read", why="gzip magic then garbage"),
    Case("many_values_read_fast", ["golden", "{g.json}"], files={"g.json": golden(many_values)}, exit=0,
         program="perfgate_read", timeout=20, stdout_has=["ok: 100000 values"],
         why="100k values once took two minutes (quadratic duplicate check)"),
]
