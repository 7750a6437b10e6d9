"""Bad tok/s reports (llama-bench JSON / JSONL / Markdown, engine reports) and ratio-floor
policies (`perfgate toks-ratio`). The other side of each case is a small valid report,
so a case fails only for the file it names."""
from badinput import Case, position_of

GOOD = '[{"n_prompt": 0, "n_gen": 128, "avg_ts": 100.5, "samples_ns": [1273631840, 1273631841]}]\n'
TEST = '{"n_prompt": 0, "n_gen": 128, "avg_ts": 100.5}'
MD_HEAD = "| model | test | t/s |\n| --- | ---: | ---: |\n"

loc = position_of


def report(name, text, code, needle=None, at=None, nth=0, why="", **kw):
    """`text` as the engine's report against a good llama-bench report."""
    if needle is not None:
        at = loc(text, needle, nth)
    return Case(name, ["toks-ratio", "--engine", "{e.json}", "--baseline", "{b.json}", "--floor", "1"],
                files={"e.json": text, "b.json": GOOD}, code=code, at=at, why=why, **kw)


def policy(name, text, code, needle=None, at=None, why="", **kw):
    if needle is not None:
        at = loc(text, needle)
    return Case(name, ["toks-ratio", "--policy", "{p.json}", "--reports", "{dir}/r"],
                files={"p.json": text, "r/c/engine.json": GOOD, "r/c/llama-bench.json": GOOD},
                code=code, at=at, why=why, **kw)


CASES = [
    report("not_json", '[{"n_prompt": 0, "n_gen": ]', "toks.bad_json", why="truncated JSON"),
    report("empty_file", "", "toks.bad_json", why="nothing to read"),
    report("scalar_top", "42\n", "toks.bad_json", at=(1, 1), why="neither an array, an object nor JSONL"),
    report("too_deep", "[" * 100 + "]" * 100, "toks.too_deep", why="nesting bounded before any DOM"),
    report("jsonl_array_line", TEST + "\n[1, 2]\n", "toks.bad_line", at=(2, 1), why="a JSONL line that is not an object"),
    report("jsonl_string_line", TEST + "\n" + TEST.replace("128", "64") + '\n  "x"\n', "toks.bad_line", at=(3, 3),
           why="the column of the line's value"),
    report("jsonl_broken_line", TEST + '\n{"n_prompt": 0, "n_gen": }\n', "toks.bad_json", why="located on its line",
           stderr_has=["JSONL line 2"]),
    report("no_n_gen", '[{"n_prompt": 0, "avg_ts": 1}]', "toks.missing_field", at=(1, 2), why="n_gen is required"),
    report("no_n_prompt", '[{"n_gen": 1, "avg_ts": 1}]', "toks.missing_field", at=(1, 2), why="n_prompt is required"),
    report("no_avg_ts", '[{"n_prompt": 0, "n_gen": 1, "samples_ns": [5]}]', "toks.missing_field", at=(1, 2),
           why="llama-bench's schema always has avg_ts"),
    report("minimal_nothing", '{"tests": [{"n_prompt": 0, "n_gen": 1}]}', "toks.missing_field",
           why="the minimal report needs samples or avg_ts"),
    report("n_gen_float", '[{"n_prompt": 0, "n_gen": 1.5, "avg_ts": 1}]', "toks.bad_field", needle='"n_gen"',
           why="sizes are whole numbers"),
    report("n_depth_negative", '[{"n_prompt": 0, "n_gen": 1, "n_depth": -2, "avg_ts": 1}]', "toks.bad_field",
           needle='"n_depth"', why="no negative depth"),
    report("no_tokens", '[{"n_prompt": 0, "n_gen": 0, "avg_ts": 1}]', "toks.bad_field", needle='"n_prompt"',
           why="a test of no tokens has no tok/s"),
    report("flash_attn_string", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 1, "flash_attn": "on"}]', "toks.bad_field",
           needle='"flash_attn"', why="neither version's type"),
    report("samples_not_array", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 1, "samples_ns": 5}]', "toks.bad_field",
           needle='"samples_ns"', why="samples are an array"),
    report("sample_string", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 1, "samples_ns": [5, "6"]}]', "toks.bad_field",
           needle='"6"', why="each sample a number"),
    report("tests_not_array", '{"tests": {"n_gen": 1}}', "toks.bad_field", needle='"tests"', why="tests is a list"),
    report("lengths_differ", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 1, "samples_ns": [5, 6], "samples_ts": [1]}]',
           "toks.sample_mismatch", needle='"samples_ts"', why="one of each per repetition"),
    report("zero_ns", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 1, "samples_ns": [5, 0]}]', "toks.bad_time",
           needle="0]", why="a repetition takes time"),
    report("tiny_ns", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 1, "samples_ns": [5, 1e-320]}]', "toks.bad_time",
           needle="1e-320", why="a time so small that tok/s is infinite"),
    report("negative_ts", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 1, "samples_ts": [-1]}]', "toks.bad_time",
           needle="-1", why="tok/s is positive"),
    report("zero_avg", '[{"n_prompt": 0, "n_gen": 1, "avg_ts": 0}]', "toks.bad_time", needle='"avg_ts"',
           why="avg_ts is positive"),
    report("duplicate_test", "[" + TEST + ",\n " + TEST.replace("100.5", "99") + "]", "toks.duplicate_test", at=(2, 2),
           why="one result per test and model"),
    report("duplicate_jsonl", TEST + "\n" + TEST + "\n", "toks.duplicate_test", at=(2, 1), why="JSONL too"),
    report("no_tests", "[]", "toks.no_tests", at=(1, 1), why="an empty report gates nothing"),
    report("unknown_test", '[{"n_prompt": 512, "n_gen": 0, "avg_ts": 1}]', "toks.unknown_test",
           stderr_has=["has no test 'tg128' (its tests: pp512)"], why="lists the tests it has"),
    report("unknown_test_no_common_tg", '[{"n_prompt": 0, "n_gen": 256, "avg_ts": 1}]', "toks.unknown_test",
           stderr_has=["(its tests: tg256); no test was named", 'or a "test" key in the policy'],
           why="no tg test both reports hold: says how to choose one"),
    report("minimal_bad_model", '{"model": 1, "tests": [' + TEST + ']}', "toks.bad_field", needle='"model"',
           why="the minimal report's model is a name"),
    report("ambiguous_test", '[{"model_filename": "a", "n_prompt": 0, "n_gen": 128, "avg_ts": 1},\n'
           ' {"model_filename": "b", "n_prompt": 0, "n_gen": 128, "avg_ts": 1}]', "toks.ambiguous_test",
           stderr_has=["for 2 models ('a', 'b')"], why="which model's result would be a guess"),
    policy("policy_unknown_key", '{"cells": {"c": {"ratio_floor": 1}}, "tolerance_pp": 1}', "toks.bad_policy",
           needle='"tolerance_pp"', stderr_has=["(known: cells, test;"], why="a misspelt key lists the known ones"),
    policy("policy_cell_unknown_key", '{"cells": {"c": {"ratio_floor": 1, "floor": 2}}}', "toks.bad_policy",
           needle='"floor"', stderr_has=["known: ratio_floor, test"], why="per cell too"),
    policy("policy_no_floor", '{"cells": {"c": {"_note": "x"}}, "_tolerance_pp": 1}', "toks.bad_policy",
           needle='"c"', stderr_has=["cell 'c' has no ratio_floor"], why="every cell has a floor"),
    # llama-bench's Markdown table (its default output)
    report("md_short_row", MD_HEAD + "| m | tg128 |\n", "toks.bad_row", at=(3, 1),
           stderr_has=["2 cells under 3 columns (model, test, t/s)"], why="a row fits its head"),
    report("md_bad_test_name", MD_HEAD + "| m | decode | 5.00 \u00b1 0.10 |\n", "toks.bad_field", at=(3, 1),
           stderr_has=["test 'decode' is no llama-bench test name"], why="only llama-bench's test names"),
    report("md_zero_rate", MD_HEAD + "| m | tg128 | 0.00 \u00b1 0.00 |\n", "toks.bad_time", at=(3, 1),
           why="a t/s is a positive mean"),
    report("md_rate_not_a_number", MD_HEAD + "| m | tg128 | fast |\n", "toks.bad_time", at=(3, 1),
           why="MEAN \u00b1 STDDEV"),
    report("md_test_twice", MD_HEAD + "| m | tg128 | 5 \u00b1 1 |\n| m | tg 128 | 6 \u00b1 1 |\n", "toks.duplicate_test",
           at=(4, 1), why="tg128 and 2023's tg 128 are one test"),
    report("md_failed_run", "ggml_cuda_init: found 1 ROCm devices:\nHW Exception by GPU node-1 reason :GPU Hang\n",
           "toks.no_table", at=(2, 1), stderr_has=["Its last line: 'HW Exception by GPU node-1 reason :GPU Hang'"],
           why="a run that printed no table names the file and says why"),
    report("md_other_table", "| a | b |\n| --- | --- |\n| 1 | 2 |\n", "toks.no_table", at=(3, 1),
           why="a table without test and t/s is none of llama-bench's"),
    # llama-bench's CSV and SQL
    report("csv_short_row", "n_prompt,n_gen,avg_ts\n\"0\",\"128\"\n", "toks.bad_row", at=(2, 1),
           stderr_has=["a row with 2 values under 3 columns"], why="a row fits its header"),
    report("csv_open_quote", "n_prompt,n_gen,avg_ts\n\"0\",\"128,\"5\"\n", "toks.bad_row", at=(2, 1),
           why="a quote left open"),
    report("csv_gen_not_a_number", "n_prompt,n_gen,avg_ts\n\"0\",\"many\",\"5\"\n", "toks.bad_field", at=(2, 1),
           why="typed as llama-bench's JSON types it, then refused by name"),
    report("sql_unclosed", "INSERT INTO test (n_prompt, n_gen, avg_ts) VALUES ('0', '128', '5'\n", "toks.bad_row",
           at=(1, 1), why="an INSERT ends in ');'"),
    report("several_runs", MD_HEAD + "| m | tg128 | 5 \u00b1 1 |\n\nbuild: aaa (1)\n\n" + MD_HEAD +
           "| m | tg128 | 6 \u00b1 1 |\n\nbuild: bbb (2)\n", "toks.several_runs", at=(9, 1),
           stderr_has=["(builds aaa (1), bbb (2)): choose one with --build"], why="which run is gated is chosen, never guessed"),
    policy("policy_bad_floor", '{"cells": {"c": {"ratio_floor": "1.0"}}}', "toks.bad_policy", needle='"ratio_floor"',
           why="a floor is a number"),
    policy("policy_bad_tolerance", '{"cells": {"c": {"ratio_floor": 1}}, "_tolerance_pp": -1}', "toks.bad_policy",
           needle='"_tolerance_pp"', why="no negative tolerance"),
    policy("policy_no_cells", '{"_comment": "x"}', "toks.bad_policy", at=(1, 1), why="a policy gates cells"),
    policy("policy_not_json", '{"cells": ', "toks.bad_json", why="truncated"),
    policy("policy_missing_report", '{"cells": {\n "c": {"ratio_floor": 1},\n "d": {"ratio_floor": 1}}}',
           "toks.missing_report", at=(3, 2), stderr_has=["cell 'd' needs"], why="fail closed on a missing cell"),
    Case("usage_floor_and_policy", ["toks-ratio", "--policy", "{p.json}", "--reports", "{dir}", "--floor", "1"],
         files={"p.json": "{}"}, code="cli.usage", why="one source of floors"),
    Case("usage_tolerance_and_policy", ["toks-ratio", "--policy", "{p.json}", "--reports", "{dir}", "--tolerance-pp", "2"],
         files={"p.json": "{}"}, code="cli.usage", why="the policy's _tolerance_pp is the one"),
    Case("usage_infinite_floor", ["toks-ratio", "--engine", "{e.json}", "--baseline", "{e.json}", "--floor", "inf"],
         files={"e.json": GOOD}, code="cli.usage", why="a floor no ratio can meet"),
    Case("usage_nothing", ["toks-ratio", "--engine", "{e.json}"], files={"e.json": GOOD}, code="cli.usage",
         why="says both forms"),
    Case("breach_exits_one", ["toks-ratio", "--engine", "{e.json}", "--baseline", "{b.json}", "--floor", "1.5"],
         files={"e.json": GOOD, "b.json": GOOD}, exit=1, stdout_has=["FAIL tg128"], why="a breach is exit 1"),
]
