"""Bad kernel-family tables (`perfgate attribute --kernel-families FILE`) and bucket
specs (`--buckets`), read before any trace. The trace is a small valid trace-event
file, so a case fails only for its table."""
import os

from badinput import Case, end_of, position_of

TRACE = """{"traceEvents": [
 {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "llama"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 12, "dur": 5, "args": {"correlation": 1}}
]}
"""

GOOD = '{"strip_prefix": "", "rules": [{"prefix": "gemm", "family": "matmul"}]}'


loc = position_of


def fam(name, text, code, needle=None, at=None, nth=0, why="", **kw):
    if needle is not None:
        at = loc(text, needle, nth)
    return Case(name, ["attribute", "--trace", "e={t.json}", "--tokens", "1", "--kernel-families", "{f.json}"],
                files={"f.json": text, "t.json": TRACE}, code=code, at=at, why=why, **kw)


def table(name, text, needle, why, nth=0):
    return fam(name, text, "families.bad_table", needle=needle, nth=nth, why=why)


def buckets(name, spec, why):
    return Case(name, ["attribute", "--trace", "e={t.json}", "--tokens", "1", "--buckets", spec],
                files={"t.json": TRACE}, code="cli.usage", why=why)


def rules(*items):
    return '{"rules": [' + ", ".join(items) + "]}"


many_rules = rules(*['{"prefix": "k%d", "family": "f"}' % i for i in range(50_000)] + ['{"prefix": "k7", "family": "g"}'])

CASES = [
    fam("empty", "", "families.bad_json", at=(1, 1), why="an empty file"),
    fam("truncated", GOOD[:30], "families.bad_json", at=end_of(GOOD[:30]), why="cut off inside rules"),
    fam("trailing_comma", '{"rules": [{"prefix": "a", "family": "b"},]}', "families.bad_json", needle="]}",
        why="a trailing comma"),
    fam("number_1e999", rules('{"prefix": "a", "family": "b"}')[:-1] + ', "x": 1e999}', "families.bad_json",
        needle="1e999", why="nlohmann throws out_of_range for 1e999", stderr_has=["number overflow"]),
    fam("negative_1e999", '{"rules": [], "strip_prefix": -1e999}', "families.bad_json", needle="-1e999",
        why="a negative overflowing number"),
    fam("bad_utf8", rules('{"prefix": "a\xff", "family": "b"}').encode("latin-1"), "families.bad_json",
        at=(1, 25), why="an invalid UTF-8 byte in a prefix"),
    fam("control_char", rules('{"prefix": "a\tb", "family": "b"}'), "families.bad_json", at=(1, 25),
        why="a raw tab inside a string"),
    fam("deep_nesting", '{"rules": ' + "[" * 100_000 + "]" * 100_000 + "}", "families.too_deep", at=(1, 13),
        why="arrays nested 100,000 deep"),
    fam("rule_nested_object", rules('{"prefix": "a", "family": {"x": 1}}'), "families.too_deep", needle='{"x"',
        why="a value nested below a rule is deeper than the table's three levels"),
    fam("duplicate_root_key", '{"rules": [], "rules": []}', "families.bad_json", needle='"rules"', nth=1,
        why="rules given twice: the last once won silently"),
    fam("duplicate_rule_key", rules('{"prefix": "a", "prefix": "b", "family": "c"}'), "families.bad_json",
        needle='"prefix"', nth=1, why="a rule's prefix given twice"),
    fam("duplicate_key_after_many_rules", many_rules[:-1] + ', "rules": []}', "families.bad_json",
        needle='"rules"', nth=1, timeout=20, why="the duplicate check is linear in the file"),
    table("root_array", '[{"prefix": "a", "family": "b"}]', "[", "the root is an array"),
    table("root_number", "7", "7", "the root is a number"),
    table("missing_rules", '{"strip_prefix": ""}', "{", "no rules"),
    table("rules_object", '{"rules": {"prefix": "a"}}', '"rules"', "rules as an object"),
    table("unknown_root_key", '{"rules": [], "strip": "kernel_"}', '"strip"', "a misspelt strip_prefix was ignored"),
    table("unknown_rule_key", rules('{"prefix": "a", "family": "b", "familly": "c"}'), '"familly"',
          "an unknown key in a rule was ignored"),
    table("strip_prefix_number", '{"rules": [], "strip_prefix": 3}', '"strip_prefix"', "strip_prefix as a number"),
    table("strip_prefix_null", '{"rules": [], "strip_prefix": null}', '"strip_prefix"', "strip_prefix null"),
    table("rule_string", rules('"gemm"'), '"gemm"', "a rule that is a string"),
    table("rule_array", rules('["gemm", "matmul"]'), '["gemm"', "a rule that is an array"),
    table("rule_missing_family", rules('{"prefix": "a"}'), '{"prefix"', "a rule without its family"),
    table("rule_missing_prefix", rules('{"family": "a"}'), '{"family"', "a rule without its prefix"),
    table("empty_prefix", rules('{"prefix": "", "family": "a"}'), '"prefix"', "an empty prefix matches everything"),
    table("empty_family", rules('{"prefix": "a", "family": ""}'), '"family"', "an empty family name"),
    table("prefix_number", rules('{"prefix": 1, "family": "a"}'), '"prefix"', "a prefix as a number"),
    table("family_bool", rules('{"prefix": "a", "family": true}'), '"family"', "a family as a boolean"),
    table("family_null", rules('{"prefix": "a", "family": null}'), '"family"', "a family as null"),
    table("repeated_prefix", rules('{"prefix": "a", "family": "x"}', '{"prefix": "b", "family": "y"}',
                                   '{"prefix": "a", "family": "z"}'), '"prefix"', nth=2,
          why="a prefix given twice: the second rule could never match"),
    table("repeated_prefix_late", many_rules, '"prefix": "k7", "family": "g"', "the 50,001st rule repeats k7"),
    Case("dir_as_table", ["attribute", "--trace", "e={t.json}", "--tokens", "1", "--kernel-families", "{dir}/sub"],
         files={"t.json": TRACE}, setup=lambda d: os.mkdir(d + "/sub"), code="io.not_a_file", at="file",
         where="sub", why="a directory once threw std::ios_failure"),
    Case("fifo_as_table", ["attribute", "--trace", "e={t.json}", "--tokens", "1", "--kernel-families", "{dir}/p"],
         files={"t.json": TRACE}, setup=lambda d: os.mkfifo(d + "/p"), code="io.not_a_file", at="file",
         where="p", timeout=20, why="a FIFO would block"),
    Case("missing_table", ["attribute", "--trace", "e={t.json}", "--tokens", "1", "--kernel-families", "{dir}/no.json"],
         files={"t.json": TRACE}, code="io.not_found", at="file", where="no.json", why="no such file"),
    buckets("buckets_empty_name", ":0:5,b:5:", "a bucket without a name"),
    buckets("buckets_gap", "a:0:5,b:6:", "a gap between bands"),
    buckets("buckets_not_open", "a:0:5,b:5:9", "the last band has an upper bound"),
    buckets("buckets_overflow", "a:0:99999999999999999999,b:99999999999999999999:", "a bound beyond int64"),
    buckets("buckets_negative", "a:-5:5,b:5:", "a negative bound"),
    buckets("buckets_empty_band", "a:0:0,b:0:", "an empty band"),
    buckets("buckets_duplicate_name", "a:0:5,a:5:", "two bands of one name would share one figure"),
]
