"""Bad per-kernel timing reports (llama.cpp / candle phase0 JSON, `nsys stats` output)
read by `perfgate kernel-report FILE [--baseline FILE]`: every kernel_report.* and
nsys_stats.* error, located where the report is wrong, plus the I/O and family-table
errors of the command's other inputs."""
import os

from badinput import Case, end_of, position_of


def kernel(name='"k_a"', calls="1.5", us_call="2", p95="2.5", us_tok="3", extra=""):
    fields = []
    if name is not None:
        fields.append('"name": ' + name)
    for key, value in (("calls_per_token_median", calls), ("us_per_call_median", us_call),
                       ("us_per_call_p95", p95), ("us_per_token_median", us_tok)):
        if value is not None:
            fields.append('"%s": %s' % (key, value))
    return "{" + ", ".join(fields) + extra + "}"


def report(*kernels, extra=""):
    body = ",\n    ".join(kernels) if kernels else ""
    return ('{\n  "stack": "llama.cpp+ggml-metal",\n  "n_tokens": 128%s,\n  "kernels": [\n    %s\n  ]\n}\n'
            % (extra, body))


GOOD = report(kernel(), kernel('"k_b"'))
DEEP = '{"kernels": [' + kernel() + '], "x": ' + "[" * 80 + "]" * 80 + "}\n"
loc = position_of


def kr(name, text, code, needle=None, at=None, nth=0, why="", baseline=False, **kw):
    if needle is not None:
        at = loc(text, needle, nth)
    if baseline:  # the bad report as the baseline: its path is the one named
        return Case(name, ["kernel-report", "{e.json}", "--baseline", "{r.json}"],
                    files={"r.json": text, "e.json": GOOD}, code=code, at=at, why=why, **kw)
    return Case(name, ["kernel-report", "{r.json}"], files={"r.json": text}, code=code, at=at, why=why, **kw)


def bad_kernel(name, k, needle, why, nth=0):
    text = report(kernel(), k)
    return kr(name, text, "kernel_report.bad_kernel", needle=needle, nth=nth, why=why)


CSV_HEAD = '"Time (%)","Total Time (ns)","Instances","Med (ns)","Name"\n'
TABLE_HEAD = " Time (%)  Total Time (ns)  Instances  Name\n --------  ---------------  ---------  ----\n"


def ns(name, text, code, needle=None, at=None, nth=0, why="", file="r.csv", args=()):
    """An nsys stats report (CSV, or a column table in a .txt) that kernel-report refuses."""
    if needle is not None:
        at = loc(text, needle, nth)
    return Case(name, ["kernel-report", "{%s}" % file, *args], files={file: text}, code=code, at=at, why=why)


STATS_CASES = [
    ns("stats_prose", "Processing [r.sqlite] with [cuda_gpu_kern_sum.py]...\nSKIPPED: r.sqlite does not contain "
       "CUDA kernel data.\n", "nsys_stats.no_table", at=(1, 1), file="r.txt",
       why="what nsys stats prints for a run without kernels: no table"),
    ns("stats_csv_fields", CSV_HEAD + '"1","2","3","k"\n', "nsys_stats.bad_row", at=(2, 1),
       why="a CSV row with a field missing"),
    ns("stats_csv_quote", CSV_HEAD + '"1","2","3","4","k\n', "nsys_stats.bad_row", at=(2, 1),
       why="a quote left open"),
    ns("stats_value", CSV_HEAD + '"1","2","three","4","k"\n', "nsys_stats.bad_value", at=(2, 1),
       why="a count that is no number"),
    ns("stats_table_value", TABLE_HEAD + "     60.0              6x0          2  k\n", "nsys_stats.bad_value",
       needle="6x0", file="r.txt", why="a column table's number with a letter, located at its cell"),
    ns("stats_table_short", TABLE_HEAD + "     60.0              600\n", "nsys_stats.bad_row", at=(3, 27),
       file="r.txt", why="a row cut before its name column"),
    ns("stats_no_name", CSV_HEAD + '"1","2","3","4",""\n', "nsys_stats.bad_row", at=(2, 1), why="an empty name"),
    ns("stats_no_rows", CSV_HEAD, "nsys_stats.no_rows", at=(1, 1), why="a header and nothing else"),
    ns("stats_no_count", '"Total Time (ns)","Name"\n"1","k"\n', "nsys_stats.bad_header", at=(1, 1),
       why="no Instances column: no calls per token"),
    ns("stats_bad_unit", '"Total Time (fortnights)","Instances","Name"\n"1","2","k"\n', "nsys_stats.bad_header",
       at=(1, 1), why="a time in a unit nsys never writes"),
    ns("stats_two_kernel_tables", CSV_HEAD + '"1","2","3","4","k"\n\n' + CSV_HEAD + '"1","2","3","4","k"\n',
       "nsys_stats.several_reports", at=(4, 1), why="two kernel summaries in one file"),
    ns("stats_bad_utf8", (CSV_HEAD + '"1","2","3","4","k\xff"\n').encode("latin-1"), "nsys_stats.bad_utf8",
       needle="\xff", why="a name that is not UTF-8"),
    Case("stats_name_with_escapes", ["kernel-report", "{r.csv}"],
         files={"r.csv": CSV_HEAD + '"1","2","3","4","k\x1b[2J\x07\x1b]0;owned\x07"\n'}, exit=0,
         stdout_has=["k\\x1b[2J\\x07\\x1b]0;owned\\x07"],
         why="a kernel name holding terminal escapes (clear screen, set title) prints them as C escapes"),
    ns("stats_tokens_for_json", GOOD, "kernel_report.tokens_given", at="file", file="r.json",
       args=("--tokens", "128"), why="a JSON report holds its own per-token figures"),
]

CASES = STATS_CASES + [
    kr("empty", "", "kernel_report.not_json", at=(1, 1), why="an empty file"),
    kr("truncated", GOOD[:70], "kernel_report.not_json", at=end_of(GOOD[:70]), why="cut off in the middle"),
    kr("not_json", "name: kernel_mul_mv\n", "kernel_report.not_json", at=(1, 2), why="not JSON at all (the parser reads 'na')"),
    kr("array_root", "[" + kernel() + "]\n", "kernel_report.not_json", at=(1, 1), why="an array, not a report"),
    kr("bad_utf8", report(kernel('"k_\xff"')).encode("latin-1"), "kernel_report.not_json", needle="\xff",
       why="invalid UTF-8 in a kernel name"),
    kr("number_1e999", report(kernel(us_tok="1e999")), "kernel_report.not_json", needle="1e999",
       why="a non-finite figure: nlohmann's out_of_range"),
    kr("duplicate_key", report(kernel(extra=', "us_per_token_median": 4')), "kernel_report.not_json",
       needle='"us_per_token_median"', nth=1, why="a figure given twice in one kernel"),
    kr("too_deep", DEEP, "kernel_report.too_deep", at=(1, position_of(DEEP, "[" * 80)[1] + 63),
       why="metadata nested 80 deep: the 64th bracket is level 65"),
    kr("no_kernels", '{\n  "stack": "candle"\n}\n', "kernel_report.no_kernels", at=(1, 1), why="no kernels array"),
    kr("empty_kernels", report(), "kernel_report.no_kernels", needle='"kernels"', why="an empty kernels array"),
    kr("kernels_not_array", '{\n  "kernels": {"name": "k"}\n}\n', "kernel_report.no_kernels",
       needle='"kernels"', why="kernels is an object"),
    kr("kernel_not_object", report(kernel(), '"k_b"'), "kernel_report.bad_kernel", needle='"k_b"',
       why="a kernel that is a string"),
    bad_kernel("no_name", kernel(name=None), '{"calls', "a kernel without a name"),
    bad_kernel("empty_name", kernel(name='""'), '"name": ""', "an empty name"),
    bad_kernel("number_name", kernel(name="7"), '"name": 7', "a name that is a number"),
    bad_kernel("missing_us_per_token", kernel('"k_b"', us_tok=None), '{"name": "k_b"',
               "no us_per_token_median"),
    bad_kernel("string_figure", kernel('"k_b"', calls='"190.5"'), '"calls_per_token_median": "190.5"',
               "a figure written as a string"),
    bad_kernel("null_figure", kernel('"k_b"', p95="null"), '"us_per_call_p95": null', "a null p95"),
    bad_kernel("string_total", kernel('"k_b"', extra=', "total_ns": "1e6"'), '"total_ns"',
               "candle's total_ns as a string"),
    kr("duplicate_kernel", report(kernel(), kernel()), "kernel_report.duplicate_kernel", needle='"name"', nth=1,
       why="one kernel name twice: the second would overwrite the first"),
    kr("negative_us", report(kernel(us_tok="-3")), "kernel_report.bad_value", needle='"us_per_token_median"',
       why="a negative time"),
    kr("huge_us", report(kernel(us_tok="1e300"), kernel('"k_b"', us_tok="1e300")), "kernel_report.bad_value",
       needle='"us_per_token_median"', why="figures whose sum overflows: an infinite Δ would pick the attack target"),
    ns("stats_huge_total", CSV_HEAD + '"1","1e308","3","4","k"\n', "nsys_stats.bad_value", at=(2, 1),
       why="a total no run can have, whose sums would overflow"),
    kr("negative_calls", report(kernel(calls="-0.5")), "kernel_report.bad_value",
       needle='"calls_per_token_median"', why="a negative call count"),
    kr("negative_unknown_figure", report(kernel(extra=', "occupancy": -1')), "kernel_report.bad_value",
       needle='"occupancy"', why="a negative figure perfgate does not know is still a figure"),
    kr("overflow_count_text", report(kernel(), extra=', "instrumentation_notes": {"overflow_count": "12abc"}'),
       "kernel_report.bad_value", needle='"overflow_count"', why="a count of untimed dispatches that is text"),
    kr("overflow_count_fraction", report(kernel(), extra=', "instrumentation_notes": {"overflow_count": 1.5}'),
       "kernel_report.bad_value", needle='"overflow_count"', why="half a dispatch"),
    kr("overflow_count_negative", report(kernel(), extra=', "instrumentation_notes": {"overflow_count": -3}'),
       "kernel_report.bad_value", needle='"overflow_count"', why="a negative count"),
    kr("bad_baseline", report(kernel(us_call='"x"')), "kernel_report.bad_kernel", needle='"us_per_call_median"',
       baseline=True, why="the baseline's report is read with the same rules"),
    Case("missing_report", ["kernel-report", "{dir}/no.json"], code="io.not_found", at="file", where="no.json",
         why="no such file"),
    Case("dir_as_report", ["kernel-report", "{dir}/sub"], setup=lambda d: os.mkdir(d + "/sub"),
         code="io.not_a_file", at="file", where="sub", why="a directory"),
    Case("bad_family_table", ["kernel-report", "{r.json}", "--kernel-families", "{f.json}"],
         files={"f.json": '{"rules": [{"prefix": "", "family": "x"}]}', "r.json": GOOD},
         code="families.bad_table", at=(1, 13), why="an empty prefix in the family table"),
]
