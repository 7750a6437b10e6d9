"""Bad engine counter reports: histories read with `perfgate history FILE` and a trial's
counters.txt read beside the bundled hf2q Metal trial by `perfgate attribute` (the
report checks fail before any trace is read, so these cases stay cheap)."""
import os

from badinput import Case, position_of

HERE = os.path.dirname(os.path.abspath(__file__))
TRIAL = os.path.join(HERE, "..", "..", "fixtures", "recordings", "decode_q4_0", "hf2q", "trial-1")

GOOD = "model: m.gguf\nforward_count: 63\ndispatches_per_token: 1070.52\n"


def history(name, text, code, needle=None, at=None, nth=0, why="", args=(), **kw):
    if needle is not None:
        at = position_of(text, needle, nth)
    return Case(name, ["history", "{c.txt}", *args], files={"c.txt": text}, code=code, at=at, why=why, **kw)


def trials(*counters):
    """A recording rec/ of len(counters) trials, each linking the bundled hf2q trial-1
    files, with trial-K/counters.txt holding counters[K-1] (None: no counters.txt)."""
    def setup(case_dir):
        for k, text in enumerate(counters, 1):
            d = os.path.join(case_dir, "rec", "trial-%d" % k)
            os.makedirs(d)
            for f in os.listdir(TRIAL):
                os.symlink(os.path.abspath(os.path.join(TRIAL, f)), os.path.join(d, f))
            if text is not None:
                with open(os.path.join(d, "counters.txt"), "w") as f:
                    f.write(text)
    return setup


def attribute(name, counters, code, why, extra=(), **kw):
    return Case(name, ["attribute", "--trace", "hf2q={dir}/rec", "--tokens", "64", *extra], setup=trials(*counters),
                code=code, why=why, **kw)


CASES = [
    history("bad_line_prose", GOOD + "this is prose\n", "counters.bad_line", needle="this", why="a line of prose"),
    history("bad_line_no_value", GOOD + "runs:\n", "counters.bad_line", needle="runs", why="a key without a value"),
    history("bad_line_spaced_key", "median tok/s: 24\n", "counters.bad_line", at=(1, 1), why="a key with spaces"),
    history("duplicate_key", GOOD + "forward_count: 64\n", "counters.duplicate_key", needle="forward_count", nth=1,
            why="a key twice in one report, no comment paragraph above the second",
            stderr_has=["first at line 2"]),
    history("unclosed_header_value", GOOD + "# ====\n# title\nmodel: x\n", "counters.unclosed_header",
            needle="model: x", why="a value inside a header block"),
    history("unclosed_header_eof", GOOD + "# ====\n# title\n", "counters.unclosed_header", needle="# ====",
            why="the file ends inside a header block"),
    history("empty_report", GOOD + "# ====\n# one\n# ====\n# ====\n# two\n# ====\n" + GOOD, "counters.empty_report",
            needle="# ====", why="a header with no values under it", stderr_has=["'one'"]),
    history("no_values_empty", "", "counters.no_values", at=(1, 1), why="an empty file"),
    history("no_values_comments", "# just a comment\n\n", "counters.no_values", at=(1, 1), why="only comments"),
    history("bad_number", "dispatches_per_token: 1e999\n", "counters.bad_number", needle="1e999",
            why="a number beyond a double"),
    history("bad_utf8", b"model: m\xff\n", "counters.bad_utf8", at=(1, 9), why="invalid UTF-8 in a value"),
    history("value_with_escape", "model: m\x1b[2J\n" + GOOD[len("model: m.gguf\n"):], "counters.bad_line",
            at=(1, 9), why="a terminal escape in a value"),
    history("value_with_nul", "model: m\x00x\n", "counters.bad_line", at=(1, 9), why="a NUL byte in a value"),
    history("number_underflow", "dispatches_per_token: 1e-400\n", "counters.bad_number", needle="1e-400",
            why="a number below the smallest double: it would read as 0"),
    history("value_only_tab", GOOD + "runs:\t\n", "counters.bad_line", needle="runs", why="a value of white space"),
    Case("byte_order_mark", ["history", "{c.txt}", "--counters", "forward_count"],
         files={"c.txt": "\ufeff" + GOOD}, exit=0, stdout_has=["63"],
         why="a UTF-8 byte order mark before the first key is no part of the key"),
    Case("crlf_lines", ["history", "{c.txt}", "--counters", "forward_count", "--format", "json"],
         files={"c.txt": GOOD.replace("\n", "\r\n")}, exit=0, stdout_has=['"text": "63"'],
         why="CRLF line ends: the CR is no part of the value"),
    history("unknown_counter", GOOD, "counters.unknown_counter", at="file", args=("--counters", "dispatch_per_token"),
            why="a counter no report holds", stderr_has=["(keys: model, forward_count, dispatches_per_token)"]),
    history("unknown_default_counter", GOOD, "counters.unknown_counter", at="file",
            why="the default median_tok_per_sec is not in the file", stderr_has=["'median_tok_per_sec'"]),
    history("svg_of_a_text_counter", GOOD, "counters.text_counter", at="file",
            args=("--counters", "model", "--format", "svg"), why="a chart of a counter that is never a number",
            stderr_has=["'model' is a number in no report"]),
    history("empty_counters_list", GOOD, "cli.usage", args=("--counters", ","), why="--counters with no names"),
    Case("missing_file", ["history", "{dir}/absent.txt"], code="io.not_found", why="no such file"),
    attribute("history_in_trial", [GOOD + "# ====\n# second\n# ====\n" + GOOD], "counters.history_in_trial",
              why="a trial's counters.txt holding two reports", stderr_has=["holds 2"]),
    attribute("missing_report", [GOOD, None], "counters.missing_report",
              why="trial-2 has no counters.txt but trial-1 has", stderr_has=["trial-2"]),
    attribute("missing_counter", [GOOD, "model: m.gguf\nforward_count: 63\n"], "counters.missing_counter",
              why="trial-2 lacks dispatches_per_token", stderr_has=["lacks the counter 'dispatches_per_token'"]),
    attribute("mixed_kinds", [GOOD, GOOD.replace("1070.52", "n/a")], "counters.mixed_kinds",
              why="a counter a number in trial-1 and text in trial-2"),
    attribute("mixed_text", [GOOD, GOOD.replace("m.gguf", "other.gguf")], "counters.mixed_text",
              why="trial-2 ran another model", stderr_has=["'model' is 'other.gguf'"]),
    attribute("bad_line_in_trial", ["dispatches per token = 1070\n"], "counters.bad_line",
              why="a trial's counters.txt not in the format", at=(1, 1), where="rec/trial-1/counters.txt"),
    attribute("counters_option_for_many_trials", [None, None], "cli.usage", extra=("--counters", "{dir}/c.txt"),
              why="--counters is for an engine of one trial", stderr_has=["has 2 trials"]),
    attribute("counters_option_unknown_engine", [None], "cli.usage", extra=("--counters", "llama={dir}/c.txt"),
              why="--counters ENGINE= naming no engine"),
]
