"""The CLI's own errors: every subcommand's bad flags, values and arguments end in the
compiler form `perfgate: error[usage.<kind>]: ...` (CLI11's errors) or
`perfgate: error[cli.<kind>]: ...` (perfgate's checks), exit 2; --help still exits 0."""
from badinput import Case

TRACE = '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"pid":1,"tid":1}]}'
XML = '<?xml version="1.0"?>\n<trace-query-result>\n</trace-query-result>\n'
ATTR = ["attribute", "--tokens", "1", "--trace", "e={t.json}"]
RECORD = ["record", "--engine", "e", "--trials", "1", "--tokens", "8", "--out", "{dir}/out"]


def usage(name, args, kind, why, files=None, **kw):
    """A usage error from perfgate with no file to name: `perfgate: error[kind]`."""
    return Case(name, args, files=files or {}, code=kind, stderr_has=[f"perfgate: error[{kind}]: "], why=why, **kw)


def attr(name, extra, kind, why):
    return usage(name, ATTR + extra, kind, why, files={"t.json": TRACE})


CASES = [
    usage("no_arguments", [], "usage.missing_required", "no subcommand at all"),
    usage("unknown_command", ["tabel", "x.xml"], "usage.unknown_command", "a misspelt subcommand"),
    usage("unknown_top_option", ["--frobnicate"], "usage.unknown_option", "an option the program lacks"),
    usage("unknown_option_table", ["table", "--bogus", "{x.xml}"], "usage.unknown_option",
          "table with an option it lacks", files={"x.xml": XML}),
    usage("unknown_option_toc", ["toc", "--schema", "s", "{x.xml}"], "usage.unknown_option",
          "toc given table's --schema", files={"x.xml": XML}),
    usage("unknown_option_info", ["info", "--format", "csv", "{x.xml}"], "usage.unknown_option",
          "info given table's --format", files={"x.xml": XML}),
    attr("unknown_option_attribute", ["--n-tokens", "64"], "usage.unknown_option", "the seed script's flag"),
    usage("unknown_option_diagnostics", ["diagnostics", "--all"], "usage.unknown_option", "diagnostics takes none"),
    usage("missing_file_table", ["table"], "usage.missing_required", "table without its file"),
    usage("missing_file_toc", ["toc"], "usage.missing_required", "toc without its file"),
    usage("missing_files_info", ["info", "--lenient"], "usage.missing_required", "info without files"),
    usage("missing_trace_attribute", ["attribute", "--tokens", "1"], "usage.missing_required",
          "attribute without --trace"),
    usage("missing_value_format", ["table", "{x.xml}", "--format"], "usage.argument_count",
          "--format as the last word, without its value", files={"x.xml": XML}),
    usage("missing_value_output", ["table", "{x.xml}", "-o"], "usage.argument_count",
          "-o without a path", files={"x.xml": XML}),
    usage("format_given_twice", ["table", "--format", "json", "--format", "csv", "{x.xml}"],
          "usage.argument_count", "one option given two values", files={"x.xml": XML}),
    usage("extra_positional_table", ["table", "{x.xml}", "{x.xml}"], "usage.extra_argument",
          "table takes one file", files={"x.xml": XML}),
    usage("extra_positional_toc", ["toc", "{x.xml}", "more"], "usage.extra_argument",
          "toc takes one file", files={"x.xml": XML}),
    usage("extra_positional_diagnostics", ["diagnostics", "now"], "usage.extra_argument",
          "diagnostics takes no argument"),
    usage("bad_format_table", ["table", "--format", "xml", "{x.xml}"], "usage.bad_value",
          "a format that is not json or csv", files={"x.xml": XML}),
    usage("run_zero", ["table", "--run", "0", "{x.xml}"], "usage.bad_value", "runs count from 1",
          files={"x.xml": XML}),
    usage("run_negative_info", ["info", "--run", "-3", "{x.xml}"], "usage.bad_value", "a negative run",
          files={"x.xml": XML}),
    usage("run_text", ["table", "--run", "two", "{x.xml}"], "usage.bad_value", "a run that is no number",
          files={"x.xml": XML}),
    usage("run_overflow", ["table", "--run", "99999999999", "{x.xml}"], "usage.bad_value",
          "a run past INT_MAX", files={"x.xml": XML}),
    usage("run_fraction", ["info", "--run", "1.5", "{x.xml}"], "usage.bad_value", "a fractional run",
          files={"x.xml": XML}),
    usage("flag_with_value", ["info", "--lenient=maybe", "{x.xml}"], "usage.bad_number",
          "a flag given a value that is no boolean", files={"x.xml": XML}),
    attr("min_trials_zero", ["--min-trials", "0"], "usage.bad_value", "at least one trial is required"),
    attr("min_trials_huge", ["--min-trials", "1e99"], "usage.bad_value", "a minimum that is no count"),
    attr("format_pdf", ["--format", "pdf"], "usage.bad_value", "an unknown report format"),
    attr("tokens_text", ["--tokens", "many"], "cli.usage", "tokens neither N nor auto:LABEL"),
    attr("tokens_zero", ["--tokens", "0"], "cli.usage", "zero tokens would divide by zero"),
    attr("tokens_overflow", ["--tokens", "99999999999999999999"], "cli.usage", "tokens past int64"),
    attr("tokens_auto_empty", ["--tokens", "auto:"], "cli.usage", "auto: without a label"),
    attr("tokens_unknown_engine", ["--tokens", "f=2"], "cli.usage", "a per-engine value for no engine"),
    attr("process_unknown_engine", ["--process", "g=py"], "cli.usage", "--process for an engine not given"),
    attr("baseline_unknown", ["--baseline", "llama"], "cli.usage", "a baseline with no --trace"),
    attr("baseline_alone", ["--baseline", "e"], "cli.usage", "a baseline and no other engine"),
    attr("format_all_without_output", ["--format", "all"], "cli.usage", "--format all needs a prefix"),
    usage("trace_without_engine", ["attribute", "--tokens", "1", "--trace", "{t.json}"], "cli.usage",
          "--trace PATH without ENGINE=", files={"t.json": TRACE}),
    usage("trace_empty_engine", ["attribute", "--tokens", "1", "--trace", "={t.json}"], "cli.usage",
          "--trace =PATH", files={"t.json": TRACE}),
    usage("trace_empty_path", ["attribute", "--tokens", "1", "--trace", "e="], "cli.usage", "--trace ENGINE="),
    # Input limits.
    usage("max_input_bytes_zero", ["toc", "--max-input-bytes", "0", "{x.xml}"], "usage.bad_value",
          "a zero limit", files={"x.xml": XML}),
    usage("max_input_bytes_unit", ["table", "--max-input-bytes", "2Q", "{x.xml}"], "usage.bad_value",
          "an unknown unit", files={"x.xml": XML}),
    usage("max_input_bytes_negative", ["info", "--max-input-bytes=-5", "{x.xml}"], "usage.bad_value",
          "a negative limit", files={"x.xml": XML}),
    usage("max_input_bytes_overflow", ["table", "--max-input-bytes", "99999999999999999999", "{x.xml}"],
          "usage.bad_value", "a limit past 64 bits", files={"x.xml": XML}),
    usage("max_input_bytes_unit_overflow", ["table", "--max-input-bytes", "17179869184T", "{x.xml}"],
          "usage.bad_value", "a limit whose unit overflows 64 bits", files={"x.xml": XML}),
    usage("max_input_bytes_empty", ["toc", "--max-input-bytes=", "{x.xml}"], "usage.bad_value",
          "an empty limit", files={"x.xml": XML}),
    attr("max_gzip_ratio_text", ["--max-gzip-ratio", "lots"], "usage.bad_value", "a ratio that is no number"),
    # record: validated before xctrace is looked for.
    usage("record_engine_traversal", ["record", "--engine", "../escape", "--trials", "1", "--tokens", "8",
                                      "--out", "{dir}/out", "--", "true"], "cli.bad_engine_name",
          "an engine name that would write outside --out"),
    usage("record_engine_slash", ["record", "--engine", "a/b", "--trials", "1", "--tokens", "8", "--out",
                                  "{dir}/out", "--", "true"], "cli.bad_engine_name", "an engine name with '/'"),
    usage("record_engine_dotdot", ["record", "--engine", "..", "--trials", "1", "--tokens", "8", "--out",
                                   "{dir}/out", "--", "true"], "cli.bad_engine_name", "the engine '..'"),
    usage("record_trials_zero", RECORD[:4] + ["0"] + RECORD[5:] + ["--", "true"], "usage.bad_value",
          "zero trials"),
    usage("record_cooldown_nan", RECORD + ["--cooldown", "nan", "--", "true"], "usage.bad_value",
          "a NaN pause: llround(NaN) is undefined"),
    usage("record_timeout_inf", RECORD + ["--timeout", "inf", "--", "true"], "usage.bad_value",
          "an infinite timeout"),
    usage("record_time_limit_huge", RECORD + ["--time-limit", "1e300", "--", "true"], "usage.bad_value",
          "a time limit whose milliseconds overflow int64"),
    usage("record_export_timeout_zero", RECORD + ["--export-timeout", "0", "--", "true"], "usage.bad_value",
          "an export that may take no time"),
    usage("record_env_without_eq", RECORD + ["--env", "PATH", "--", "true"], "cli.usage",
          "--env without NAME=VALUE"),
    usage("record_no_command", RECORD, "cli.usage", "nothing to record"),
    usage("record_missing_out", RECORD[:7] + ["--", "true"], "usage.missing_required", "record without --out"),
    # --help keeps working.
    Case("help", ["--help"], exit=0, stdout_has=["Exit codes: 0 ok"], why="the top-level help"),
    Case("help_table", ["table", "--help"], exit=0, stdout_has=["--max-input-bytes"],
         why="a subcommand's help lists the input limits"),
    Case("help_attribute", ["attribute", "--help"], exit=0, stdout_has=["--max-gzip-ratio"],
         why="attribute's help lists the input limits"),
]
