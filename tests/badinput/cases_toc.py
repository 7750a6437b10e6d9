"""Bad inputs for the `xctrace export --toc` reader (perfgate toc / info).

Built from one minimal TOC; locations are computed from the bytes each case writes
(the nth occurrence of a marker), so they say exactly where the error must point.
"""
import os

from badinput import Case, position_of

HEAD = '<?xml version="1.0"?>\n<trace-toc>\n'


def toc(run_body="", number="1", extra_runs=""):
    return (HEAD + f'<run number="{number}">\n<info><target><device model="Mac" name="m"/>'
            f'<process name="app" pid="42"/></target>\n<summary>{run_body}</summary></info>\n'
            '<processes><process name="app" pid="42" path="/a"/></processes>\n'
            '<data><table schema="metal-gpu-intervals"/></data>\n</run>\n' + extra_runs + "</trace-toc>\n")


def settings(inner):
    return f"<intruments-recording-settings>{inner}</intruments-recording-settings>"


def nested_settings(depth):
    return settings('<instrument name="i">' + "<array>" * depth + '<key name="k">v</key>' + "</array>" * depth +
                    "</instrument>")


at = position_of


def toc_case(name, text, marker, code, why, nth=0, command="toc", **kw):
    return Case(name, [command, "{in.toc}"], files={"in.toc": text}, code=code,
                at=at(text, marker, nth) if marker is not None else "file", why=why, **kw)


VALID = toc("<duration>5.0</duration>")
CUT = VALID[: VALID.index("<data>")]
MANY_RUNS = HEAD + '<run number="1"/>\n' * 1_000_000 + "</trace-toc>\n"
# 64 names of 1 KB joined into each of 20,000 leaf keys: 1.3 GB of keys from 100 KB.
LONG_KEY = settings("".join(f'<instrument name="{"n" * 1000}">' for _ in range(60)) + '<key name="k"/>' * 20_000 +
                    "</instrument>" * 60)

CASES = [
    # --- the file itself -----------------------------------------------------------------
    Case("empty_file", ["toc", "{in.toc}"], files={"in.toc": b""}, code="xctrace.empty_file", at="file",
         why="a zero-byte file"),
    Case("missing_file", ["toc", "{dir}/absent.toc"], code="io.not_found", at="file", where="absent.toc",
         why="a path that does not exist"),
    Case("directory_as_file", ["toc", "{dir}/sub"], setup=lambda d: os.mkdir(d + "/sub"), code="io.not_a_file",
         at="file", where="sub", why="a directory where the TOC should be"),
    toc_case("bad_utf8", VALID.encode().replace(b'name="m"', b'name="\xc3("'), b"\xc3", "xctrace.bad_utf8",
             "a truncated two-byte sequence in an attribute"),
    # pugixml finds no element only at the end of the text.
    toc_case("not_xml", "this is not xml\n", "\n", "xctrace.not_xml", "plain text"),
    toc_case("truncated", CUT, "\n", "xctrace.truncated", "the TOC cut before <data>: reported at its last byte",
             nth=CUT.count("\n") - 1),
    toc_case("wrong_root", '<?xml version="1.0"?>\n<trace-query-result/>\n', "<trace-query-result",
             "xctrace.unexpected_root", "a table export handed to `perfgate toc`"),
    toc_case("second_root", VALID + "<trace-toc/>\n", "<trace-toc", "xctrace.not_xml",
             "a second root element after </trace-toc>", nth=1),
    toc_case("mismatched_end_tag", VALID.replace("</summary>", "</summery>"), "</summery", "xctrace.not_xml",
             "an end tag that closes another element"),
    # The quote opened at model= closes at name="; pugixml stops at the `m` after it.
    toc_case("unterminated_attribute", VALID.replace('model="Mac"', 'model="Mac'), 'm"/>', "xctrace.not_xml",
             "an attribute value whose quote closes one attribute late"),
    # --- required parts ----------------------------------------------------------------------
    toc_case("no_run", HEAD + "</trace-toc>\n", "<trace-toc", "xctrace.bad_toc", "a TOC without any <run>"),
    toc_case("run_without_number", VALID.replace(' number="1"', ""), "<run", "xctrace.bad_toc",
             "<run> without its number"),
    toc_case("run_number_zero", toc(number="0"), "<run", "xctrace.bad_toc", "run number 0"),
    toc_case("run_number_negative", toc(number="-1"), "<run", "xctrace.bad_toc", "a negative run number"),
    toc_case("run_number_past_int", toc(number="2147483648"), "<run", "xctrace.bad_toc", "a run number past INT_MAX"),
    toc_case("run_number_not_decimal", toc(number="1x"), "<run", "xctrace.bad_toc", "a run number with junk"),
    toc_case("pid_not_decimal", VALID.replace('pid="42" path', 'pid="4x2" path'), '<process name="app" pid="4x2"',
             "xctrace.bad_toc", "a pid with a letter in it"),
    toc_case("pid_overflow", VALID.replace('pid="42"/>', 'pid="99999999999999999999"/>'), "<process",
             "xctrace.bad_toc", "a pid past INT64_MAX"),
    toc_case("duration_negative", toc("<duration>-1</duration>"), "<duration", "xctrace.bad_toc",
             "a negative recording length"),
    toc_case("duration_exponent", toc("<duration>1e5</duration>"), "<duration", "xctrace.bad_toc",
             "a duration in exponent form"),
    toc_case("duration_nan", toc("<duration>nan</duration>"), "<duration", "xctrace.bad_toc", "a NaN duration"),
    toc_case("duration_empty", toc("<duration></duration>"), "<duration", "xctrace.bad_toc", "an empty duration"),
    toc_case("duration_huge", toc("<duration>" + "9" * 400 + "</duration>"), "<duration", "xctrace.bad_toc",
             "a duration past the largest double"),
    toc_case("table_without_schema", VALID.replace('schema="metal-gpu-intervals"', 'codes="1"'), "<table",
             "xctrace.bad_toc", "a <table> no --xpath could select"),
    toc_case("table_empty_schema", VALID.replace('schema="metal-gpu-intervals"', 'schema=""'), "<table",
             "xctrace.bad_toc", "a <table> with an empty schema"),
    toc_case("info_reports_bad_pid", VALID.replace('pid="42" path', 'pid="-3" path'), '<process name="app" pid="-3"',
             "xctrace.bad_toc", "`perfgate info` on a TOC with a negative pid", command="info"),
    # --- characters XML forbids --------------------------------------------------------------------
    toc_case("char_ref_nul_in_attribute", VALID.replace('name="m"', 'name="a&#0;b"'), "&#0;", "xctrace.bad_char",
             "&#0; would cut the device name short"),
    toc_case("char_ref_control_in_text", toc("<end-reason>x&#x1F;</end-reason>"), "&#x1F;", "xctrace.bad_char",
             "a reference to U+001F"),
    toc_case("char_ref_surrogate_in_setting", toc(settings('<key name="k">&#xDFFF;</key>')), "&#xDFFF;",
             "xctrace.bad_char", "a lone low surrogate in a setting"),
    toc_case("raw_control_byte", toc("<end-reason>a\x07b</end-reason>"), "\x07", "xctrace.bad_char",
             "a raw BEL byte"),
    Case("char_ref_in_comment_is_text", ["toc", "{in.toc}"], files={"in.toc": VALID.replace("<run", "<!-- &#0; --><run")},
         exit=0, stdout_has=['"duration_s": 5.0'], why="&#0; inside a comment is text: the TOC is valid"),
    # --- depth and size -------------------------------------------------------------------------------------
    toc_case("settings_30000_deep", toc(nested_settings(30_000)), "<array>", "xctrace.too_deep",
             "recording settings nested 30,000 deep (old: stack overflow)", nth=62),
    toc_case("settings_65_deep", toc(nested_settings(65)), "<array>", "xctrace.too_deep",
             "one level past the bound", nth=62),
    Case("settings_63_deep_reads", ["toc", "{in.toc}"], files={"in.toc": toc(nested_settings(62))}, exit=0,
         stdout_has=['"key": "i/k"'], why="just within the bound: read, key joined"),
    # An empty run costs sizeof(TocRun) + 2 sizeof(TocDevice) + sizeof(TocProcess) =
    # 880 + 2 x 160 + 200 = 1,400 bytes (libstdc++, x86-64): the first run past 32 x the
    # file + 1 MiB is where the reader stops (runs start on line 3).
    Case("million_runs", ["toc", "{in.toc}"], files={"in.toc": MANY_RUNS}, code="xctrace.toc_too_large",
         at=(3 + (32 * len(MANY_RUNS) + (1 << 20)) // 1400, 1), why="a million empty <run>s (old: 4.4 GB)"),
    # Each leaf costs its entry (64 bytes in libstdc++) and its joined key: the first leaf
    # past 32 x the file + 1 MiB is where the reader stops.
    toc_case("long_key_many_leaves", toc(LONG_KEY), '<key name="k"/>', "xctrace.toc_too_large",
             "60 names of 1 KB joined into each of 20,000 leaf keys (1.2 GB of keys from 100 KB)",
             nth=(32 * len(toc(LONG_KEY)) + (1 << 20)) // (64 + 60 * 1001 + 1)),
]
