"""Bad ANE recordings replayed with `perfgate ane-dma replay FILE` (any host): eval-samples
files (kind perfgate.ane_eval_samples) and a run's report.json (metric native_eval_us)."""
import os

from badinput import Case, end_of, position_of

POINTS = '[{"cin": 2016, "eval_us": [350, 352]}, {"cin": 2048, "eval_us": [780, 790]}]'


def samples(points=POINTS, cores='16', cout='4096', chip='{"guessed_chip": "Apple M4", "ane_cores": 16}',
            extra=""):
    fields = ['"kind": "perfgate.ane_eval_samples"', '"schema_version": 1']
    if chip is not None:
        fields.append('"chip": ' + chip)
    if cores is not None:
        fields.append('"cores": ' + cores)
    if cout is not None:
        fields.append('"cout": ' + cout)
    fields.append('"points": ' + points)
    return "{\n  " + ",\n  ".join(fields) + extra + "\n}\n"


def report(status="passed_kernel_dma_profile", cores="16", chip='{"guessed_chip": "Apple M4"}', points=None):
    pts = points or ('[{"cin": 2016, "cout": 4096, "eval_us_samples": [350]}, '
                     '{"cin": 2048, "cout": 4096, "eval_us_samples": [780]}]')
    return ('{\n  "metric": "native_eval_us",\n  "status": "%s",\n  "chip": %s,\n  "cores": %s,\n  "points": %s\n}\n'
            % (status, chip, cores, pts))


loc = position_of


def ane(name, text, code, needle=None, at=None, nth=0, why="", **kw):
    if needle is not None:
        at = loc(text, needle, nth)
    return Case(name, ["ane-dma", "replay", "{r.json}"], files={"r.json": text}, code=code, at=at, why=why, **kw)


def schema(name, text, needle, why, nth=0, **kw):
    return ane(name, text, "ane.replay_bad_schema", needle=needle, nth=nth, why=why, **kw)


GOOD = samples()
U64 = "18446744073709551615"

CASES = [
    ane("empty", "", "ane.replay_bad_json", at=(1, 1), why="an empty file"),
    ane("truncated", GOOD[:60], "ane.replay_bad_json", at=end_of(GOOD[:60]), why="cut off in the middle"),
    ane("not_json", "cores = 16\n", "ane.replay_bad_json", at=(1, 1), why="not JSON at all"),
    ane("number_1e999_sample", samples('[{"cin": 2016, "eval_us": [1e999]}, {"cin": 2048, "eval_us": [780]}]'),
        "ane.replay_bad_json", needle="1e999", why="nlohmann throws out_of_range for 1e999; it escaped",
        stderr_has=["number overflow"]),
    ane("number_1e999_cores", samples(cores="1e999"), "ane.replay_bad_json", needle="1e999",
        why="an overflowing core count"),
    ane("bad_utf8", samples(chip='{"guessed_chip": "M\xff"}').encode("latin-1"), "ane.replay_bad_json",
        needle="\xff", why="invalid UTF-8 in the chip name"),
    ane("duplicate_cores", samples(extra=',\n  "cores": 32'), "ane.replay_bad_json", needle='"cores"', nth=1,
        why="cores given twice: the last once won silently"),
    ane("duplicate_point_key", samples('[{"cin": 2016, "cin": 2048, "eval_us": [1]}, {"cin": 2048, "eval_us": [2]}]'),
        "ane.replay_bad_json", needle='"cin"', nth=1, why="a point's cin given twice"),
    ane("deep_nesting", '{"kind": ' + "[" * 50_000 + "]" * 50_000 + "}", "ane.replay_too_deep", at=(1, 10 + 63),
        why="arrays nested 50,000 deep"),
    schema("root_array", "[1]\n", "[", "the root is an array"),
    schema("unknown_kind", '{"kind": "perfgate.other"}', '"kind"', "neither a report nor an eval-samples file"),
    schema("schema_version_2", GOOD.replace('"schema_version": 1', '"schema_version": 2'), '"schema_version"',
           "an unsupported schema version"),
    schema("schema_version_string", GOOD.replace('"schema_version": 1', '"schema_version": "1"'),
           '"schema_version"', "schema_version as a string"),
    schema("cores_narrowing", samples(cores="4294967312"), '"cores"',
           "4294967312 was read as 16 cores (int narrowing)", stderr_has=["4294967312"]),
    schema("cores_u64_max", samples(cores=U64), '"cores"', "a core count of 2^64 - 1 (unsigned) was -1"),
    schema("cores_zero", samples(cores="0"), '"cores"', "zero cores"),
    schema("cores_negative", samples(cores="-16"), '"cores"', "negative cores"),
    schema("cores_float", samples(cores="16.5"), '"cores"', "a fractional core count"),
    schema("cores_string", samples(cores='"16"'), '"cores"', "cores as a string"),
    schema("chip_cores_narrowing", samples(chip='{"ane_cores": 4294967312}', cores=None), '"ane_cores"',
           "the chip's ane_cores narrowed to int"),
    schema("chip_not_object", samples(chip='"M4"'), '"chip"', "chip as a string"),
    schema("points_missing", '{"kind": "perfgate.ane_eval_samples", "schema_version": 1, "cout": 4096}', "{",
           "no points"),
    schema("point_not_object", samples('[7, {"cin": 2048, "eval_us": [780]}]'), "7", "a point that is a number"),
    schema("cin_missing", samples('[{"eval_us": [350]}, {"cin": 2048, "eval_us": [780]}]'), '{"eval_us"',
           "a point without cin"),
    schema("cin_huge", samples('[{"cin": 4611686018427387904, "eval_us": [1]}, {"cin": 2048, "eval_us": [780]}]'),
           '"cin"', "a cin of 2^62"),
    schema("cout_u64", samples(cout=U64), '"cout"', "a cout of 2^64 - 1"),
    schema("samples_missing", samples('[{"cin": 2016}, {"cin": 2048, "eval_us": [780]}]'), '{"cin": 2016}',
           "a point without samples"),
    schema("sample_string", samples('[{"cin": 2016, "eval_us": ["350"]}, {"cin": 2048, "eval_us": [780]}]'),
           '"350"', "a sample as a string"),
    schema("samples_object", samples('[{"cin": 2016, "eval_us": {}}, {"cin": 2048, "eval_us": [780]}]'),
           '"eval_us"', "samples as an object"),
    schema("overhead_not_array", samples(extra=',\n  "overhead_us": 5'), '"overhead_us"', "overhead as a number"),
    ane("bytes_per_core_overflow",
        samples('[{"cin": 2147483648, "cout": 2147483648, "eval_us": [1]}, {"cin": 2048, "eval_us": [780]}]', cores="1"),
        "ane.bad_shape", at="file", why="cin x cout x 2 overflows int64; then an unchecked StatusOr threw"),
    ane("shape_over_limit",
        samples('[{"cin": 2147483647, "cout": 2147483647, "eval_us": [1]}, {"cin": 2048, "eval_us": [780]}]', cores="1"),
        "ane.bad_shape", at="file", why="a weight of 2^63 bytes fits in int64 but not in the MiB arithmetic"),
    ane("cout_not_divisible", samples(cout="4095"), "ane.bad_shape", at="file", why="cout not divisible by cores"),
    ane("one_point", samples('[{"cin": 2048, "eval_us": [780]}]'), "ane.bad_scan", at="file",
        why="a scan needs two points"),
    ane("no_point_on_notch", samples('[{"cin": 2016, "eval_us": [350]}, {"cin": 2017, "eval_us": [780]}]'),
        "ane.bad_scan", at="file", why="no point is on the notch"),
    ane("negative_sample", samples('[{"cin": 2016, "eval_us": [-1]}, {"cin": 2048, "eval_us": [780]}]'),
        "ane.bad_timing", at="file", why="a negative time"),
    ane("empty_samples", samples('[{"cin": 2016, "eval_us": []}, {"cin": 2048, "eval_us": [780]}]'),
        "ane.bad_timing", at="file", why="a point without samples"),
    ane("report_not_passed", report(status="stopped"), "ane.replay_not_passed", at="file",
        why="a recorded run that did not pass"),
    schema("report_cores_narrowing", report(cores="4294967312"), '"cores"', "the report's cores narrowed to int"),
    schema("report_chip_missing", report(chip='null'), '"chip"', "a report without its chip"),
    Case("dir_without_report", ["ane-dma", "replay", "{dir}/run"], setup=lambda d: os.mkdir(d + "/run"),
         code="ane.replay_unreadable", at="file", where="run/report.json", why="a run directory without report.json"),
    Case("report_is_dir", ["ane-dma", "replay", "{dir}/run"],
         setup=lambda d: os.makedirs(d + "/run/report.json"), code="ane.replay_unreadable", at="file",
         where="run/report.json", why="report.json is a directory", stderr_has=["directory"]),
    Case("label_bad_utf8", ["ane-dma", "--host-only", "--label", "m3u\udcff"], code="cli.usage",
         why="a label that is not UTF-8 made nlohmann's dump throw type_error (abort)"),
    Case("host_only_shape_overflow", ["ane-dma", "--host-only", "--cout", "9223372036854775807", "--cins",
                                      "9223372036854775807", "--cores", "1"], code="ane.bad_shape",
         why="cin x cout x 2 overflowed int64 in the host report"),
    Case("fifo", ["ane-dma", "replay", "{dir}/p"], setup=lambda d: os.mkfifo(d + "/p"),
         code="ane.replay_unreadable", at="file", where="p", timeout=20, why="a FIFO would block the reader"),
]
