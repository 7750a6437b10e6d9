"""Bad trace-event JSON (Chrome / Kineto), attributed with `perfgate attribute --trace
e=FILE --tokens 1`. Every file names "traceEvents" or "ph" as a key, so the sniff hands
it to the trace-JSON reader and the error is the reader's."""
import gzip

from badinput import Case, end_of, position_of

META = '{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "llama"}}'
LAUNCH = ('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2, '
          '"args": {"correlation": 1}}')
KERNEL = ('{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 5, '
          '"args": {"correlation": 1}}')


def trace(*events, head=""):
    return '{%s"traceEvents": [\n' % head + ",\n".join(events) + "\n]}\n"


GOOD = trace(META, LAUNCH, KERNEL)


def kernel(**fields):
    """KERNEL with fields replaced (a value of None drops the field); values are JSON text."""
    base = {"ph": '"X"', "cat": '"kernel"', "name": '"gemm"', "pid": "0", "tid": "7", "ts": "12", "dur": "5",
            "args": '{"correlation": 1}'}
    base.update(fields)
    return "{" + ", ".join('"%s": %s' % (k, v) for k, v in base.items() if v is not None) + "}"


loc = position_of


def tj(name, text, code, needle=None, at=None, nth=0, why="", **kw):
    if needle is not None:
        at = loc(text, needle, nth)
    return Case(name, ["attribute", "--trace", "e={t.json}", "--tokens", "1"], files={"t.json": text}, code=code,
                at=at, why=why, **kw)


def bad_event(name, ev, needle, why, nth=0, **kw):
    text = trace(META, LAUNCH, ev)
    return tj(name, text, "json.bad_event", needle=needle, nth=nth, why=why, **kw)


TS_2_61_US = "2305843009213693.952"  # 2^61 ns: the largest time accepted
BIG_DUR = "2305843009213693.952"
overflowing_kernels = [kernel(ts="0", dur=BIG_DUR, args='{"correlation": %d}' % i) for i in range(5)]
DEEP_ARGS = trace(META, LAUNCH, kernel(args='{"x": ' + "[" * 300 + "]" * 300 + "}"))
DEEP_AT = loc(DEEP_ARGS, "[" * 300)
PAD = '"pad": "%s", ' % ("x" * 100_000)
# '{', 200 MB of spaces, then the key: 200 gzip members of 1 MiB of spaces each (about
# 200 KB on disk). The key lies past the 64 MiB the limits let this file inflate to, so
# the sniff must stop there undecided instead of inflating all of it (up to 4 GiB once),
# and the unclaimed file is then named for what it is.
SPACES_MEMBER = gzip.compress(b" " * (1 << 20), 9)
WHITESPACE_BOMB = gzip.compress(b"{") + SPACES_MEMBER * 200 + gzip.compress(b'"traceEvents": []}')

CASES = [
    tj("truncated_in_event", GOOD[:-40], "json.truncated", at=end_of(GOOD[:-40]), why="cut off inside an event"),
    tj("truncated_in_string", GOOD[:GOOD.index("gemm") + 2], "json.truncated",
       at=end_of(GOOD[:GOOD.index("gemm") + 2]), why="cut off inside a name"),
    tj("truncated_after_array", GOOD.rstrip()[:-1], "json.truncated", at=end_of(GOOD.rstrip()[:-1]),
       why="the root object is never closed"),
    tj("bad_utf8_name", trace(META, LAUNCH, kernel(name='"ge\xffmm"')).encode("latin-1"), "json.bad_utf8",
       needle="\xff", why="an invalid UTF-8 byte in a kernel name"),
    tj("overlong_utf8", trace(META, LAUNCH, kernel(name='"\xc0\xafx"')).encode("latin-1"), "json.bad_utf8",
       needle="\xc0", why="an overlong encoding of '/'"),
    tj("ts_1e999", trace(META, LAUNCH, kernel(ts="1e999")), "json.not_json", needle="1e999",
       why="a number beyond double", stderr_has=["number overflow"]),
    tj("nan_literal", trace(META, LAUNCH, kernel(dur="NaN")), "json.not_json", needle="NaN", why="NaN is not JSON"),
    tj("leading_zero", trace(META, LAUNCH, kernel(ts="012")), "json.not_json", needle='2, "dur"',
       why="a number with a leading zero"),
    tj("comment", GOOD.replace("[\n", "[ // events\n"), "json.not_json", at=(1, 19), why="comments are not JSON"),
    tj("trailing_garbage", GOOD + "]", "json.not_json", at=(6, 1), why="a second value after the root"),
    tj("control_char", trace(META, LAUNCH, kernel(name='"a\tb"')), "json.not_json", needle="\tb",
       why="a raw tab in a string"),
    tj("bad_escape", trace(META, LAUNCH, kernel(name='"a\\qb"')), "json.not_json", needle="qb",
       why="an invalid escape"),
    tj("lone_surrogate", trace(META, LAUNCH, kernel(name='"\\ud800x"')), "json.not_json", at=(4, 45),
       why="a high surrogate without its low half"),
    tj("events_object", '{"traceEvents": {"ph": "X"}}', "json.not_json", at=(1, 2),
       why="traceEvents is an object"),
    tj("events_number", '{"traceEvents": 7}', "json.not_json", at=(1, 2), why="traceEvents is a number"),
    tj("events_null", '{"traceEvents": null}', "json.not_json", at=(1, 2), why="traceEvents is null"),
    tj("two_event_arrays", '{"traceEvents": [%s], "traceEvents": [%s]}' % (KERNEL, KERNEL), "json.not_json",
       needle='"traceEvents"', nth=1, why="a second traceEvents array"),
    tj("empty_events", '{"traceEvents": []}', "json.no_events", at=(1, 1), why="no events"),
    tj("too_deep_args", DEEP_ARGS, "json.too_deep", at=(DEEP_AT[0], DEEP_AT[1] + 252),
       why="args nested 300 deep: the 257th level is the 253rd '[' (inside the top object, traceEvents, the event "
           "and args)"),
    tj("deep_100k_skipped", '{"ph": "X", "x": ' + "[" * 100_000 + "]" * 100_000 + ', "traceEvents": []}',
       "json.too_deep", at=(1, 17 + 256), timeout=20, why="a skipped value nested 100,000 deep"),
    bad_event("event_number", "7", "7\n]", "an event that is a number"),
    bad_event("event_array", '["X"]', '["X"]', "an event that is an array"),
    bad_event("ph_missing", kernel(ph=None), '{"cat": "kernel"', "an event without ph"),
    bad_event("ph_number", kernel(ph="1"), '"ph": 1', "ph as a number"),
    bad_event("ts_missing", kernel(ts=None), '{"ph": "X", "cat": "kernel"', "a complete event without ts"),
    bad_event("dur_missing", kernel(dur=None), '{"ph": "X", "cat": "kernel"', "a complete event without dur"),
    bad_event("ts_string", kernel(ts='"12"'), '"ts"', "ts as a string", nth=1),
    bad_event("dur_negative", kernel(dur="-5"), '{"ph": "X", "cat": "kernel"', "a negative duration"),
    bad_event("ts_beyond_2_61", kernel(ts="2305843009213694"), '{"ph": "X", "cat": "kernel"',
              "ts past 2^61 ns: ts + dur and end - start could overflow"),
    bad_event("ts_negative_beyond_2_61", kernel(ts="-2305843009213694"), '{"ph": "X", "cat": "kernel"',
              "ts below -2^61 ns: a span to a positive end overflows"),
    bad_event("dur_beyond_2_61", kernel(dur="2305843009213694"), '{"ph": "X", "cat": "kernel"',
              "dur past 2^61 ns"),
    bad_event("ts_out_of_int64", kernel(ts="9223372036854775807"), '"ts"', "ts beyond int64 nanoseconds", nth=1),
    bad_event("pid_u64", kernel(pid="18446744073709551615"), '"pid"', "pid beyond int64", nth=2),
    bad_event("pid_float", kernel(pid="1.5"), '"pid"', "a fractional pid", nth=2),
    bad_event("name_number", kernel(name="7"), '"name": 7', "a kernel name that is a number"),
    bad_event("cat_array", kernel(cat='["kernel"]'), '"cat": [', "cat as an array"),
    bad_event("correlation_negative", kernel(args='{"correlation": -1}'), '"correlation": -1',
              "a negative correlation id"),
    bad_event("correlation_string", kernel(args='{"correlation": "1"}'), '"correlation": "1"',
              "a correlation id as a string"),
    bad_event("correlation_float", kernel(args='{"correlation": 1.5}'), '"correlation": 1.5',
              "a fractional correlation id"),
    bad_event("duplicate_ts", kernel(ts="12, \"ts\": 13"), '"ts": 13', "ts given twice: the last once won"),
    bad_event("duplicate_correlation_arg", kernel(args='{"correlation": 1, "correlation": 2}'), '"correlation": 2',
              "args.correlation given twice"),
    bad_event("process_name_without_pid", '{"ph": "M", "name": "process_name", "args": {"name": "x"}}',
              '{"ph": "M", "name": "process_name", "args"', "process metadata without pid"),
    bad_event("thread_name_without_tid", '{"ph": "M", "name": "thread_name", "pid": 1, "args": {"name": "x"}}',
              '{"ph": "M", "name": "thread_name"', "thread metadata without tid"),
    bad_event("process_name_number", '{"ph": "M", "name": "process_name", "pid": 2, "args": {"name": 5}}',
              '"name": 5', "a process name that is a number"),
    tj("bad_event_after_64k", trace(META, LAUNCH, kernel(dur="-1"), head=PAD), "json.bad_event",
       needle='{"ph": "X", "cat": "kernel"', why="traceEvents after 64 KiB: the sniff once missed it"),
    tj("kernel_sum_overflow", trace(*overflowing_kernels), "json.sum_overflow", at="file",
       why="five kernels of 2^61 ns each: the GPU sum wrapped to a negative time and exit 0"),
    tj("sniff_whitespace_bomb", WHITESPACE_BOMB, "io.gzip_bomb", at="file", timeout=30,
       why="gzip of '{' and 200 MB of spaces: the sniff inflated up to 4 GiB (several times per file); now it stops "
           "at the cap undecided, and the unclaimed file is named a bomb"),
    tj("gzip_truncated", gzip.compress(GOOD.encode() * 50)[:200], "io.bad_gzip", at="file",
       why="a gzip stream cut off"),
]
