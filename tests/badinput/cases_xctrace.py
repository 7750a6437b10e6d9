"""Bad inputs for the `xctrace export --xpath` reader (perfgate table / info / attribute).

Every input is built here from a few helpers; locations are computed from the bytes
the case writes (the first occurrence of a marker), so they say exactly where the
error must point.
"""
import os

from badinput import Case, position_of

HEAD = '<?xml version="1.0"?>\n<trace-query-result>\n'
TAIL = "</node></trace-query-result>\n"


def col(mnemonic, etype):
    return f"<col><mnemonic>{mnemonic}</mnemonic><name>{mnemonic}</name><engineering-type>{etype}</engineering-type></col>"


def schema(name, cols):
    return f'<schema name="{name}">' + "".join(col(m, t) for m, t in cols) + "</schema>"


def node(name, cols, rows, xpath="//trace-toc[1]/run[1]/data[1]/table[1]"):
    return f"<node xpath='{xpath}'>" + schema(name, cols) + "\n" + "".join(f"<row>{r}</row>\n" for r in rows)


def doc(*nodes):
    return HEAD + "</node>\n".join(nodes) + TAIL


ONE = [("v", "string")]
INT = [("t", "start-time")]


def simple(rows, cols=ONE, name="s"):
    return doc(node(name, cols, rows))


at = position_of


def table_case(name, text, marker, code, why, nth=0, args=None, **kw):
    return Case(name, args or ["table", "{in.xml}"], files={"in.xml": text}, code=code,
                at=at(text, marker, nth) if marker is not None else None, why=why, **kw)


# --- Metal trials for `perfgate attribute` ---------------------------------------
EP_COLS = [("timestamp", "start-time"), ("channel-id", "metal-command-buffer-id"), ("function", "uint32"),
           ("slot-id", "uint32"), ("gpu-submission-id", "metal-command-buffer-id")]
EP = "metal-gpu-execution-points"


def point(t, fn, sub, channel=1):
    return (f"<start-time>{t}</start-time><metal-command-buffer-id>{channel}</metal-command-buffer-id>"
            f"<uint32>{fn}</uint32><uint32>{sub}</uint32><metal-command-buffer-id>{sub}</metal-command-buffer-id>")


def points_node(pairs, xpath="//trace-toc[1]/run[1]/data[1]/table[1]"):
    rows = []
    for sub, (start, end) in enumerate(pairs, 1):
        rows += [point(start, 1, sub), point(end, 2, sub)]
    return node(EP, EP_COLS, rows, xpath)


ENC_COLS = [("start", "start-time"), ("duration", "duration"), ("process", "process"),
            ("cmdbuffer-id", "metal-command-buffer-id"), ("encoder-id", "metal-command-buffer-id"),
            ("encoder-label", "string"), ("cmdbuffer-label", "string")]
MAP_COLS = [("timestamp", "start-time"), ("gpu-submission-id", "metal-command-buffer-id"),
            ("cmdbuffer-id", "metal-command-buffer-id"), ("encoder-id", "metal-command-buffer-id"),
            ("process", "process")]
PROC = '<process id="900" fmt="eng (7)"><pid id="901">7</pid></process>'
PROC_REF = '<process ref="900"/>'


def map_node(n, process_cells=None):
    rows = []
    for sub in range(1, n + 1):
        proc = (process_cells or [PROC] + [PROC_REF] * n)[sub - 1]
        rows.append(f"<start-time>{sub}</start-time><metal-command-buffer-id>{sub}</metal-command-buffer-id>"
                    f"<metal-command-buffer-id>{sub}</metal-command-buffer-id>"
                    f"<metal-command-buffer-id>{sub}</metal-command-buffer-id>{proc}")
    return node("metal-gpu-submission-to-command-buffer-id", MAP_COLS, rows,
                "//trace-toc[1]/run[1]/data[1]/table[2]")


def encoders_node(durations):
    rows = []
    for i, d in enumerate(durations, 1):
        proc = PROC_REF
        rows.append(f"<start-time>{i}</start-time><duration>{d}</duration>{proc}"
                    f"<metal-command-buffer-id>{i}</metal-command-buffer-id>"
                    f"<metal-command-buffer-id>{i}</metal-command-buffer-id><string>k{i}</string><string>cb</string>")
    return node("metal-application-encoders-list", ENC_COLS, rows, "//trace-toc[1]/run[1]/data[1]/table[3]")


def attribute_case(name, text, code, why, exit=2, extra=(), **kw):
    return Case(name, ["attribute", "--trace", "eng={in.xml}", "--tokens", "4", *extra], files={"in.xml": text},
                exit=exit, code=code, why=why, **{"at": "file" if code else None, **kw})


# --- adversarial structures --------------------------------------------------------
def ref_chain(levels):
    """Value i is <a> holding a ref to value i-1 (defined a row earlier): one level of
    nesting per row, `levels` levels through refs."""
    rows = ['<thread fmt="t"><a id="1"><b>x</b></a></thread>']
    rows += [f'<thread fmt="t"><a id="{i}"><a ref="{i - 1}"/></a></thread>' for i in range(2, levels + 1)]
    return simple(rows, cols=[("thread", "thread")])


def dag(levels, tail=""):
    """Level k defines level k-1 and refs it again: 2**levels paths in a few KB, and
    `tail` (e.g. the pid) after all of them, where a depth-first walk arrives last."""
    text = '<x id="1"><y>0</y></x>'
    for k in range(2, levels + 1):
        text = f'<x id="{k}">{text}<x ref="{k - 1}"/></x>'
    return text + tail


def nested(depth, leaf="v"):
    return "<a>" * depth + leaf + "</a>" * depth


def wide_tags(n):
    return '<thread fmt="w">' + "".join(f"<t{i}>{i}</t{i}>" for i in range(n)) + "</thread>"


LONG = "L" * 200_000
EXPANDING = simple([f'<string id="1">{LONG}</string>'] + ['<string ref="1"/>'] * 2000)
DAG_CELL = f'<thread fmt="t">{dag(40)}</thread>'
CDATA_NODE_END = simple(["<string><![CDATA[a</node>b</row>c]]></string>", "<string>d</string>"])
COMMENT_NODE_END = simple(["<string>a</string><!-- </node></row> -->", "<string>b</string>"])
TWICE = doc(points_node([(100, 200), (300, 450)]), points_node([(100, 200), (300, 450)]))

CASES = [
    # --- the file itself --------------------------------------------------------
    Case("empty_file", ["table", "{in.xml}"], files={"in.xml": b""}, code="xctrace.empty_file", at=(1, 1),
         why="a zero-byte file"),
    Case("missing_file", ["table", "{dir}/absent.xml"], code="io.not_found", at="file", where="absent.xml",
         why="a path that does not exist"),
    Case("directory_as_file", ["table", "{dir}/sub"], setup=lambda d: os.mkdir(d + "/sub"), code="io.not_a_file",
         at="file", where="sub", why="a directory where the export should be"),
    table_case("bad_utf8", simple(["<string>ok</string>"]).encode().replace(b">ok<", b">o\xff<"), b"\xff",
               "xctrace.bad_utf8", "a byte that is not UTF-8 in a value"),
    table_case("not_xml_garbage", "hello, world\n", "hello", "xctrace.not_xml", "plain text"),
    table_case("wrong_root", "<?xml version=\"1.0\"?>\n<html></html>\n", "<html", "xctrace.unexpected_root",
               "well-formed XML of another kind"),
    table_case("toc_given_to_table", "<?xml version=\"1.0\"?>\n<trace-toc><run number=\"1\"/></trace-toc>\n",
               "<trace-toc", "xctrace.unexpected_root", "a TOC handed to `perfgate table`"),
    table_case("no_node", HEAD + "</trace-query-result>\n", "<trace-query-result", "xctrace.empty_export",
               "an export of a query that matched nothing"),
    table_case("content_after_root", simple(["<string>a</string>"]) + "<extra/>\n", "<extra", "xctrace.not_xml",
               "a second root element"),
    table_case("unterminated_comment", HEAD + "<!-- never closed\n", "<!--", "xctrace.truncated",
               "a comment that runs to the end of the file"),
    # --- truncation and structure -------------------------------------------------
    table_case("truncated_mid_row", simple(["<string>a</string>", "<string>b</string>"])[:-len(TAIL) - 12],
               "<row>", "xctrace.truncated", "the file cut inside its last row", nth=1),
    table_case("mismatched_end_tag", simple(["<string>a</strung>"]), "</strung", "xctrace.not_xml",
               "an end tag that closes another element"),
    table_case("arity_too_few", simple(["<string>a</string>"], cols=ONE + [("w", "string")]), "<row>",
               "xctrace.arity_mismatch", "a row with one cell under two columns"),
    table_case("arity_too_many", simple(["<string>a</string><string>b</string>"]), "<row>",
               "xctrace.arity_mismatch", "a row with two cells under one column"),
    table_case("type_mismatch", simple(["<uint64>1</uint64>"]), "<uint64", "xctrace.type_mismatch",
               "a uint64 cell in a string column"),
    table_case("unknown_element_among_rows", simple(["<string>a</string>"]).replace("<row>", "<rov/><row>"), "<rov",
               "xctrace.unknown_element", "an element other than <row> among the rows"),
    table_case("text_inside_row", simple(["junk<string>a</string>"]), "junk", "xctrace.unknown_element",
               "text directly inside <row>"),
    table_case("missing_schema", HEAD + "<node xpath='x'><row><string>a</string></row>\n" + TAIL, "<node",
               "xctrace.missing_schema", "rows with no schema anywhere before them"),
    table_case("bad_column", doc(node("s", [("", "string")], ["<string>a</string>"])), "<col>", "xctrace.bad_column",
               "a column without a mnemonic"),
    table_case("schema_conflict",
               doc(node("s", ONE, ["<string>a</string>"]), node("s", [("w", "string")], ["<string>b</string>"])),
               '<schema name="s">', "xctrace.schema_conflict", "one xpath, two different schemas", nth=1),
    table_case("multiple_runs",
               doc(node("s", ONE, ["<string>a</string>"]),
                   node("s", ONE, ["<string>b</string>"], "//trace-toc[1]/run[2]/data[1]/table[1]")),
               "<node", "xctrace.multiple_runs", "one schema from two runs, no --run", nth=1),
    table_case("run_not_found", simple(["<string>a</string>"]), "<node", "xctrace.run_not_found",
               "--run names a run the export lacks", args=["table", "{in.xml}", "--run", "2"]),
    table_case("schema_mismatch", simple(["<string>a</string>"]), "<schema", "xctrace.schema_mismatch",
               "--schema names another schema", args=["table", "{in.xml}", "--schema", "other"]),
    # --- ids and refs ---------------------------------------------------------------
    table_case("duplicate_id", simple(['<string id="1">a</string>', '<string id="1">b</string>']),
               '<string id="1">b', "xctrace.duplicate_id", "an id defined twice"),
    table_case("dangling_ref", simple(['<string ref="7"/>']), '<string ref', "xctrace.dangling_ref",
               "a ref to an id that never appears"),
    table_case("forward_ref", simple(['<string ref="1"/>', '<string id="1">a</string>']), '<string ref',
               "xctrace.forward_ref", "a ref to an id defined later"),
    table_case("ref_tag_mismatch",
               simple(['<string id="1">a</string><uint64 id="2">1</uint64>', '<string ref="2"/><uint64 ref="2"/>'],
                      cols=ONE + [("n", "uint64")]),
               '<string ref="2"', "xctrace.ref_tag_mismatch", "a <string ref> pointing at a <uint64>"),
    table_case("bad_ref_text", simple(['<string ref="x1"/>']), '<string ref', "xctrace.bad_id",
               "a ref that is not a number"),
    table_case("id_too_large", simple(['<string id="99999999999999999999">a</string>']), "<string id",
               "xctrace.bad_id", "an id past UINT64_MAX"),
    table_case("id_and_ref", simple(['<string id="1">a</string>', '<string id="2" ref="1"/>']),
               '<string id="2"', "xctrace.id_and_ref", "an element with both id and ref"),
    # --- numbers ------------------------------------------------------------------
    table_case("bad_integer_text", simple(["<start-time>12x</start-time>"], cols=INT), "<start-time>",
               "xctrace.bad_integer", "a time that is not a number"),
    table_case("int64_overflow_text", simple(["<start-time>9223372036854775808</start-time>"], cols=INT),
               "<start-time>", "xctrace.bad_integer", "a time one past INT64_MAX"),
    table_case("uint32_overflow_text", simple(["<uint32>4294967296</uint32>"], cols=[("n", "uint32")]), "<uint32>",
               "xctrace.bad_integer", "a uint32 one past its range"),
    table_case("negative_unsigned", simple(["<uint64>-1</uint64>"], cols=[("n", "uint64")]), "<uint64>",
               "xctrace.bad_integer", "a negative uint64"),
    # --- characters XML forbids ----------------------------------------------------------
    table_case("char_ref_nul", simple(["<string>ab&#0;cd</string>"]), "&#0;", "xctrace.bad_char",
               "&#0; would cut the string at 'ab'"),
    table_case("char_ref_hex_control", simple(["<string>&#x1;</string>"]), "&#x1;", "xctrace.bad_char",
               "a reference to U+0001"),
    table_case("char_ref_surrogate", simple(["<string>&#xD800;</string>"]), "&#xD800;", "xctrace.bad_char",
               "a reference to a lone surrogate"),
    table_case("char_ref_fffe", simple(["<string>&#65534;</string>"]), "&#65534;", "xctrace.bad_char",
               "a reference to the noncharacter U+FFFE"),
    table_case("char_ref_beyond_unicode", simple(["<string>&#x110000;</string>"]), "&#x110000;",
               "xctrace.bad_char", "a reference past U+10FFFF"),
    table_case("char_ref_nul_many_zeros", simple(["<string>ab&#" + "0" * 20 + ";cd</string>"]), "&#0000",
               "xctrace.bad_char", "twenty zeros: pugixml decodes NUL (old: read as malformed, cut at 'ab')"),
    table_case("char_ref_hex_nul_many_zeros", simple(["<string>ab&#x" + "0" * 16 + ";cd</string>"]), "&#x",
               "xctrace.bad_char", "sixteen hex zeros decode to NUL"),
    table_case("char_ref_beyond_unicode_long", simple(["<string>&#x1000000000041;</string>"]), "&#x",
               "xctrace.bad_char", "thirteen hex digits past U+10FFFF (pugixml would wrap it to 'A')"),
    Case("char_ref_long_zero_padded_is_a", ["table", "{in.xml}"],
         files={"in.xml": simple(["<string>&#x0000000000041;</string>"])}, exit=0, stdout_has=['"v": "A"'],
         why="leading zeros past twelve digits still name 'A': the file is valid"),
    table_case("raw_fffe", simple(["<string>a\uFFFEb</string>"]), "\uFFFE", "xctrace.bad_char",
               "raw bytes EF BF BE: U+FFFE, which XML 1.0 forbids (old: read as text)"),
    table_case("raw_ffff_in_comment", simple(["<string>a</string><!-- \uFFFF -->"]), "\uFFFF",
               "xctrace.bad_char", "raw U+FFFF is forbidden in comments too"),
    table_case("char_ref_in_attribute", simple(['<string fmt="&#0;">a</string>']), "&#0;", "xctrace.bad_char",
               "&#0; in a fmt attribute"),
    table_case("raw_control_byte", simple(["<string>a\x01b</string>"]), "\x01", "xctrace.bad_char",
               "a raw U+0001 byte in a value"),
    table_case("raw_nul_byte", simple(["<string>a\x00b</string>"]), "\x00", "xctrace.bad_char",
               "a raw NUL byte, which strlen would stop at"),
    Case("char_ref_in_comment_is_text", ["table", "{in.xml}"],
         files={"in.xml": simple(["<string>a</string><!-- &#0; -->"])}, exit=0, stdout_has=['"v": "a"'],
         why="&#0; inside a comment is not a reference: the file is valid"),
    table_case("text_split_by_comment", simple(["<string>ab<!-- x -->cd</string>"]), "cd", "xctrace.split_text",
               "text in two pieces, of which the reader could keep only one"),
    # --- valid XML the chunker must not misread ---------------------------------------
    Case("node_end_inside_cdata", ["table", "{in.xml}"], files={"in.xml": CDATA_NODE_END}, exit=0,
         stdout_has=['"v": "a</node>b</row>c"', '"v": "d"'], why="</node> and </row> as CDATA text"),
    Case("node_end_inside_comment", ["table", "{in.xml}"], files={"in.xml": COMMENT_NODE_END}, exit=0,
         stdout_has=['"v": "a"', '"v": "b"'], why="</node> and </row> inside a comment among the rows"),
    # --- depth, width and expansion ---------------------------------------------------------
    table_case("nesting_too_deep", simple([f'<thread fmt="t">{nested(100)}</thread>'], cols=[("thread", "thread")]),
               "<a>", "xctrace.too_deep", "elements nested 100 deep", nth=64),
    table_case("ref_chain_too_deep", ref_chain(200), '<thread fmt="t"><a id="64">', "xctrace.too_deep",
               "each value a ref to the previous one: 200 levels through refs, 2 by nesting"),
    table_case("ref_dag_expands", simple([DAG_CELL], cols=[("thread", "thread")]), "<row>",
               "xctrace.output_too_large",
               "40 levels of two refs each: 2**40 leaves from 1 KB (old: gigabytes of JSON)"),
    table_case("long_string_repeated_by_ref", EXPANDING, "<row>", "xctrace.output_too_large",
               "a 200 KB string printed again by 2,000 refs (CSV is bounded too)", nth=
               # the first row whose line (the string and '\n') passes 64 x the file + 1 MiB after the header
               (64 * len(EXPANDING) + (1 << 20) - len("v\n")) // (len(LONG) + 1),
               args=["table", "{in.xml}", "--format", "csv"]),
    Case("wide_distinct_child_tags", ["table", "{in.xml}"],
         files={"in.xml": simple([wide_tags(65535)], cols=[("thread", "thread")])}, exit=0,
         stdout_has=['"t65534":"65534"'], timeout=30,
         why="one composite with 65,535 distinct child tags (old: grouping was quadratic)"),
    table_case("too_many_children", simple(['<thread fmt="w">' + "<t>1</t>" * 65536 + "</thread>"],
                                           cols=[("thread", "thread")]),
               "<thread", "xctrace.too_wide", "65,536 children of one element"),
    table_case("too_many_attributes", simple(['<thread fmt="w" ' + " ".join(f'a{i}="1"' for i in range(256)) +
                                              "><t>1</t></thread>"], cols=[("thread", "thread")]),
               "<thread", "xctrace.too_wide", "256 attributes on one element"),
    # --- attribution over crafted trials -----------------------------------------------------
    attribute_case("dag_before_pid",
                   doc(points_node([(10, 20)]),
                       map_node(1, ['<process id="900" fmt="eng (7)">' + dag(40, "<pid>7</pid>") + "</process>"])),
                   "", "the pid after 2**40 paths through refs (old: Value::Find never finished)", exit=0,
                   stdout_has=["eng"]),
    attribute_case("node_appended_twice", TWICE, "xctrace.duplicate_row",
                   "the execution-points node exported twice: every pair would count twice",
                   extra=["--all-processes"], at=at(TWICE, "<row>", 4)),
    attribute_case("duration_overflow", doc(points_node([(-9000000000000000000, 9000000000000000000)])),
                   "attr.overflow", "end - start past INT64_MAX (old: a negative GPU time, exit 0)",
                   extra=["--all-processes"]),
    attribute_case("every_row_skipped",
                   doc(node(EP, EP_COLS, ["<sentinel/>" + point(1, 1, 1)[point(1, 1, 1).index("<metal"):],
                                          "<sentinel/>" + point(2, 2, 1)[point(2, 2, 1).index("<metal"):]])),
                   "attr.no_pairs", "every row lacks its timestamp: say why nothing paired",
                   extra=["--all-processes"], stderr_has=["2 rows skipped"]),
    attribute_case("only_starts", doc(node(EP, EP_COLS, [point(1, 1, 1), point(2, 1, 2)])), "attr.no_pairs",
                   "starts that never end", extra=["--all-processes"], stderr_has=["2 starts never ended"]),
    attribute_case("encoder_time_overflow",
                   doc(points_node([(10, 20), (30, 40)]), map_node(2),
                       encoders_node([9000000000000000000, 9000000000000000000])),
                   "attr.overflow", "two encoders whose host times sum past INT64_MAX", extra=["--all-processes"]),
]
