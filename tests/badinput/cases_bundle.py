"""Recordings on disk: directories of trials that are laid out wrong, metadata that is
not what it claims, duplicates, mixed sources, links that loop. Discovery reads every
file of a trial or names why it cannot."""
import gzip
import os
import socket

from badinput import Case, position_of

TRACE = '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"pid":1,"tid":1}]}'
XML = '<?xml version="1.0"?>\n<trace-query-result>\n</trace-query-result>\n'
POINTS = "metal-gpu-execution-points"
META = '{"recorder": "test", "tokens": 1}'


def attribute(*traces, extra=()):
    args = ["attribute", "--tokens", "1"]
    for t in traces:
        args += ["--trace", t]
    return args + list(extra)


def rec(name, files, code, where, why, traces=("e={dir}/rec",), extra=(), setup=None, at="file", **kw):
    """A recording at {dir}/rec; `files` relative to it, the error at rec/`where` (line, col where given)."""
    return Case(name, attribute(*traces, extra=extra), files={"rec/" + k: v for k, v in files.items()},
                setup=setup, code=code, at=at, where="rec/" + where if where else "rec", why=why, **kw)


loc = position_of


META_KEY = "k" * 1000000
META_BOMB = '{"%s": {%s}}' % (META_KEY, ",".join('"a%d": 1' % i for i in range(200000)))


def first_past_budget(text):
    """The leaf a<i> that the flattening budget (4 bytes per input byte, 1 MiB floor) refuses."""
    left = max(1 << 20, 4 * len(text)) - (len(META_KEY) + 1)
    for name in sorted("a%d" % i for i in range(200000)):  # keys flatten in sorted order
        if left < len(META_KEY) + 2 + len(name):
            return name
        left -= len(META_KEY) + 2 + len(name)


def in_rec(fn):
    return lambda d: fn(os.path.join(d, "rec"))


def gz_bomb():
    import zlib
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join([c.compress(b"\0" * (1 << 20)) for _ in range(80)] + [c.flush()])


def write_bomb(rel):
    def go(d):
        with open(os.path.join(d, rel), "wb") as f:
            f.write(gz_bomb())
    return go


def unix_socket(rel):
    def go(d):
        s = socket.socket(socket.AF_UNIX)
        s.bind(os.path.join(d, rel))
        s.close()
    return go


CASES = [
    Case("empty_recording", attribute("e={dir}/rec"), setup=lambda d: os.mkdir(d + "/rec"), code="attr.no_trials",
         at="file", where="rec", why="a recording directory with nothing in it"),
    Case("missing_recording", attribute("e={dir}/absent"), code="io.not_found", at="file", where="absent",
         why="--trace to a path that does not exist"),
    Case("recording_is_link_loop", attribute("e={dir}/rec"), setup=lambda d: os.symlink("rec", d + "/rec"),
         code="io.symlink_loop", at="file", where="rec", why="the recording itself is a link to itself"),
    Case("recording_is_dangling_link", attribute("e={dir}/rec"), setup=lambda d: os.symlink("gone", d + "/rec"),
         code="bundle.bad_trial", at="file", where="rec", why="the recording is a link to nothing"),
    # Metadata.
    rec("meta_not_json", {"trial-1/trace.json": TRACE, "trial-1/meta.json": "{tokens: 1"}, "bundle.bad_meta",
        "trial-1/meta.json", "a meta.json that is not JSON is an error, not ignored", at=(1, 3)),
    rec("meta_array", {"trial-1/trace.json": TRACE, "trial-1/meta.json": "[1, 2]"}, "bundle.bad_meta",
        "trial-1/meta.json", "a meta.json that is JSON but no object", at=(1, 1)),
    rec("meta_empty", {"trial-1/trace.json": TRACE, "trial-1/meta.json": ""}, "bundle.bad_meta",
        "trial-1/meta.json", "an empty meta.json", at=(1, 1)),
    rec("meta_duplicate_key", {"trial-1/trace.json": TRACE, "trial-1/meta.json": '{"tokens": 1, "tokens": 64}'},
        "bundle.bad_meta", "trial-1/meta.json", "a key given twice: which count is meant?", at=loc('{"tokens": 1, "tokens": 64}', '"tokens"', 1)),
    rec("meta_nested_duplicate", {"trial-1/trace.json": TRACE,
                                  "trial-1/meta.json": '{"env": {"gpu": "a", "gpu": "b"}}'},
        "bundle.bad_meta", "trial-1/meta.json", "a key given twice in a nested object", at=loc('{"env": {"gpu": "a", "gpu": "b"}}', '"gpu"', 1)),
    rec("meta_too_deep", {"trial-1/trace.json": TRACE, "trial-1/meta.json": '{"a":' * 5000 + "1" + "}" * 5000},
        "bundle.bad_meta", "trial-1/meta.json", "5000 nested objects would overflow the flattening stack", at=(1, 1 + 5 * 64)),
    rec("meta_deep_array", {"trial-1/trace.json": TRACE, "trial-1/meta.json": '{"a":' + "[" * 100000 + "]" * 100000 + "}"},
        "bundle.bad_meta", "trial-1/meta.json", "100000 nested arrays would overflow dump()", at=(1, 6 + 63)),
    rec("meta_bad_utf8", {"trial-1/trace.json": TRACE, "trial-1/meta.json": b'{"gpu": "\xff\xfe"}'},
        "bundle.bad_meta", "trial-1/meta.json", "a meta.json string that is not UTF-8", at=(1, 10)),
    rec("meta_huge_number", {"trial-1/trace.json": TRACE, "trial-1/meta.json": '{"tokens": 1e999}'},
        "bundle.bad_meta", "trial-1/meta.json", "a number past double", at=(1, 12)),
    rec("meta_truncated", {"trial-1/trace.json": TRACE, "trial-1/meta.json": META[:-5]}, "bundle.bad_meta",
        "trial-1/meta.json", "a meta.json cut off", at=(1, len(META) - 5 + 1)),
    rec("meta_nested_and_dotted", {"trial-1/trace.json": TRACE, "trial-1/meta.json": '{"a": {"b": 1},\n "a.b": 2}'},
        "bundle.bad_meta", "trial-1/meta.json", "a nested and a dotted key that flatten to one: one was dropped",
        at=(2, 2)),
    rec("meta_flattens_huge", {"trial-1/trace.json": TRACE, "trial-1/meta.json": META_BOMB}, "bundle.bad_meta",
        "trial-1/meta.json", "a 1 MB key over 200k leaves: each leaf stored the key, 2.4 MB flattening to 200 GB",
        at=loc(META_BOMB, '"%s"' % first_past_budget(META_BOMB)), timeout=20),
    rec("meta_is_directory", {"trial-1/trace.json": TRACE}, "io.not_a_file", "trial-1/meta.json",
        "a directory named meta.json would be skipped", setup=lambda d: os.mkdir(d + "/rec/trial-1/meta.json")),
    rec("meta_is_fifo", {"trial-1/trace.json": TRACE}, "io.not_a_file", "trial-1/meta.json",
        "a FIFO named meta.json would block", setup=lambda d: os.mkfifo(d + "/rec/trial-1/meta.json"), timeout=20),
    rec("meta_link_loop", {"trial-1/trace.json": TRACE}, "io.symlink_loop", "trial-1/meta.json",
        "meta.json a link to itself", setup=lambda d: os.symlink("meta.json", d + "/rec/trial-1/meta.json")),
    rec("recording_meta_bad", {"trial-1.json": TRACE, "meta.json": "not json"}, "bundle.bad_meta", "meta.json",
        "the recording's own meta.json beside its trial files", at=(1, 2)),
    rec("environment_json_bad", {"trial-1.json": TRACE, "environment.json": "{"}, "bundle.bad_meta",
        "environment.json", "the recorder's environment.json that is not JSON", at=(1, 2)),
    # Two files where one is read.
    rec("xml_beside_broken_gz", {f"trial-1/{POINTS}.xml": XML, f"trial-1/{POINTS}.xml.gz": b"\x1f\x8bbroken"},
        "bundle.ambiguous", f"trial-1/{POINTS}.xml.gz", "a broken .xml.gz beside the .xml would be ignored"),
    rec("trace_json_and_gz", {"trial-1/trace.json": TRACE, "trial-1/trace.json.gz": gzip.compress(TRACE.encode())},
        "bundle.ambiguous", "trial-1/trace.json.gz", "trace.json and trace.json.gz: only one would be read"),
    rec("trial_inside_trial", {"trace.json": TRACE, "trial-1/trace.json": TRACE}, "bundle.ambiguous", "",
        "a directory that is a trial and holds trials"),
    rec("trial_nested_in_a_trial", {"trial-1/trace.json": TRACE, "trial-1/inner/trace.json": TRACE},
        "bundle.ambiguous", "trial-1", "a trial of the recording holds another trial, which would vanish unread"),
    rec("trial_1_and_01", {"trial-1/trace.json": TRACE, "trial-01/trace.json": TRACE}, "bundle.ambiguous", "",
        "trial-1 beside a copy named trial-01 would count one trial twice"),
    rec("trial_files_2_and_002", {"trial-2.json": TRACE, "trial-002.json": TRACE}, "bundle.ambiguous", "",
        "trial files whose numbers differ only in leading zeros"),
    # Trial files that are no file, or cannot be read.
    rec("trial_json_link_loop", {"trial-1.json": TRACE}, "io.symlink_loop", "trial-2.json",
        "a trial file that links to itself", setup=lambda d: os.symlink("trial-2.json", d + "/rec/trial-2.json")),
    rec("trial_dir_link_cycle", {"trial-1.json": TRACE}, "io.symlink_loop", "trial-2",
        "two trial links that point at each other",
        setup=lambda d: (os.symlink("trial-3", d + "/rec/trial-2"), os.symlink("trial-2", d + "/rec/trial-3"))),
    rec("trial_link_to_recording", {"trial-1.json": TRACE}, "bundle.bad_trial", "trial-2",
        "a trial directory that links back to the recording (no endless walk)",
        setup=lambda d: os.symlink(".", d + "/rec/trial-2")),
    rec("trial_dangling_link", {"trial-1.json": TRACE}, "bundle.bad_trial", "trial-2.json",
        "a dangling link among the trials", setup=lambda d: os.symlink("gone.json", d + "/rec/trial-2.json")),
    rec("trial_fifo", {"trial-1.json": TRACE}, "io.not_a_file", "trial-2.json", "a FIFO among the trials",
        setup=lambda d: os.mkfifo(d + "/rec/trial-2.json"), timeout=20),
    rec("trial_socket", {"trial-1.json": TRACE}, "io.not_a_file", "trial-2.json", "a socket among the trials",
        setup=unix_socket("rec/trial-2.json")),
    rec("trace_json_is_directory", {"trial-1/trace.json/x": TRACE}, "io.not_a_file", "trial-1/trace.json",
        "a trial's trace.json that is a directory"),
    rec("trace_json_fifo", {}, "io.not_a_file", "trial-1/trace.json", "a trial's trace.json that is a FIFO",
        setup=lambda d: (os.makedirs(d + "/rec/trial-1"), os.mkfifo(d + "/rec/trial-1/trace.json")), timeout=20),
    rec("points_xml_fifo", {}, "io.not_a_file", f"trial-1/{POINTS}.xml", "a FIFO as the execution-points export",
        setup=lambda d: (os.makedirs(d + "/rec/trial-1"), os.mkfifo(d + f"/rec/trial-1/{POINTS}.xml")), timeout=20),
    rec("trace_json_gz_broken", {"trial-1/trace.json.gz": gzip.compress(TRACE.encode())[:30]}, "io.bad_gzip",
        "trial-1/trace.json.gz", "a truncated trace.json.gz: the gzip error, not 'no trial'"),
    rec("trace_json_not_trace", {"trial-1/trace.json": '{"events": []}'}, "source.unknown_format",
        "trial-1/trace.json", "a trace.json that is JSON but no trace-event JSON"),
    rec("trial_gzip_bomb", {"trial-1.json": TRACE}, "io.gzip_bomb", "trial-2.json.gz", "a trial that is a gzip bomb",
        setup=write_bomb("rec/trial-2.json.gz"), timeout=30),
    rec("trial_too_large", {"trial-1.json": TRACE + " " * 4096}, "io.too_large", "trial-1.json",
        "a trial over --max-input-bytes", extra=("--max-input-bytes", "4K")),
    # Files no source reads.
    rec("unknown_file", {"trial-1.json": TRACE, "trial-2.bin": b"\0\1\2"}, "bundle.unknown_file", "trial-2.bin",
        "a file no source reads is no ignored file"),
    rec("json_not_trace", {"trial-1.json": TRACE, "trial-2.json": '{"a": 1}'}, "source.unknown_format",
        "trial-2.json", "a .json that is no trace-event JSON gets that error, not the XML reader's"),
    rec("json_by_first_byte", {"trial-1.json": TRACE, "trial-2.dat": '  [{"a": 1}]'}, "source.unknown_format",
        "trial-2.dat", "a file whose first byte says JSON"),
    rec("json_gz_not_trace", {"trial-1.json": TRACE, "trial-2.json.gz": gzip.compress(b'{"b": 2}')},
        "source.unknown_format", "trial-2.json.gz", "a gzipped JSON that is no trace"),
    rec("empty_trial_directory", {"trial-1.json": TRACE}, "bundle.bad_trial", "trial-2",
        "an empty trial-2/ beside trial files", setup=lambda d: os.mkdir(d + "/rec/trial-2")),
    rec("trial_dir_without_trace", {"trial-1/notes.txt": "x"}, "bundle.bad_trial", "trial-1",
        "a trial directory that lost its trace"),
    rec("incomplete_trial", {"trial-1/trace.json": TRACE, "trial-1/INCOMPLETE": ""}, "record.incomplete_bundle",
        "trial-1", "a trial the recorder marked incomplete"),
    # Several trials and engines.
    rec("mixed_sources", {"trial-1.json": TRACE, "trial-2.xml": XML}, "bundle.mixed_sources", "",
        "a Metal export and a trace-event trial in one recording"),
    Case("duplicate_trial", attribute("e={t.json}", "e={t.json}"), files={"t.json": TRACE},
         code="bundle.duplicate_trial", at="file", why="one trial given twice would count twice"),
    Case("duplicate_trial_by_link", attribute("e={t.json}", "e={dir}/u.json"), files={"t.json": TRACE},
         setup=lambda d: os.symlink("t.json", d + "/u.json"), code="bundle.duplicate_trial", at="file",
         where="u.json", why="the same trial through a link"),
    rec("too_few_trials", {"trial-1.json": TRACE}, "bundle.too_few_trials", "",
        "one trial where --min-trials asks for three", extra=("--min-trials", "3")),
    Case("baseline_missing_recording", attribute("e={t.json}", "llama={dir}/absent", extra=("--baseline", "llama")),
         files={"t.json": TRACE}, code="io.not_found", at="file", where="absent",
         why="the baseline's recording is absent"),
    Case("baseline_recording_empty", attribute("e={t.json}", "llama={dir}/base", extra=("--baseline", "llama")),
         files={"t.json": TRACE}, setup=lambda d: os.mkdir(d + "/base"), code="attr.no_trials", at="file",
         where="base", why="the baseline's recording holds nothing"),
]
