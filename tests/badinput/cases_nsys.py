"""Bad Nsight Systems SQLite exports, attributed with `perfgate attribute --trace
e=FILE --tokens 1`. The databases are built here with Python's sqlite3 and written as
bytes; each error names the file (`path: error[nsys.code]`)."""
import sqlite3

from badinput import Case

PID = 77
GLOBAL_PID = (1 << 48) | (PID << 24)

EXPORT = """
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '{version}');
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<1>(int)');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
INSERT INTO PROCESSES VALUES ({gpid}, {pid}, 'python3');
"""


def kernel(device, start=100, correlation=5):
    return (f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({start}, {start + 50}, {device}, 7, {correlation}, "
            f"{GLOBAL_PID}, 1);")


def db(script="", version="3.25.0", base=True):
    """The bytes of a database built by the export schema (when `base`) and `script`."""
    c = sqlite3.connect(":memory:")
    c.executescript((EXPORT.format(version=version, gpid=GLOBAL_PID, pid=PID) if base else "") + script)
    return c.serialize()


GOOD = db(kernel(0))


def nc(name, data, code, why, args=(), file="t.sqlite", extra_files=None, **kw):
    return Case(name, ["attribute", "--trace", "e={%s}" % file, "--tokens", "1", *args],
                files={file: data, **(extra_files or {})}, code=code, at="file", why=why, **kw)


CASES = [
    nc("text_named_sqlite", "hello\n", "nsys.not_sqlite", "a text file named .sqlite"),
    nc("empty_named_sqlite", b"", "nsys.not_sqlite", "an empty .sqlite file"),
    nc("report_not_exported", b"\x00NSYS-REP" + bytes(200), "nsys.not_sqlite", "an .nsys-rep report, not exported",
       file="t.nsys-rep", stderr_has=["nsys export --type sqlite"]),
    nc("magic_then_garbage", b"SQLite format 3\x00" + b"\xff" * 300, "nsys.not_sqlite",
       "the SQLite magic, then no valid header"),
    nc("truncated_export", GOOD[:len(GOOD) // 2], "nsys.uncommitted", "an export cut in half: pages missing",
       stderr_has=["cut short"]),
    nc("plain_sqlite", db("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);", base=False),
       "nsys.not_nsys_export", "an SQLite database that no nsys export made", file="t.db"),
    nc("no_schema_version", db("DELETE FROM META_DATA_EXPORT;" + kernel(0)), "nsys.not_nsys_export",
       "META_DATA_EXPORT without EXPORT_SCHEMA_VERSION"),
    nc("schema_major_4", db(kernel(0), version="4.0.0"), "nsys.unknown_schema", "an export schema of the future",
       stderr_has=["'4.0.0'"]),
    nc("schema_major_1", db(kernel(0), version="1.4.0"), "nsys.unknown_schema", "an export schema older than 2.x",
       stderr_has=["2.x to 3.x"]),
    nc("old_metadata_schema_4", db("ALTER TABLE META_DATA_EXPORT RENAME TO EXPORT_META_DATA;" + kernel(0),
                                   version="4.0.0"),
       "nsys.unknown_schema", "nsys 2022.1's metadata table is checked like today's"),
    nc("string_table_alone", db("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);", base=False),
       "nsys.not_nsys_export", "StringIds without CUPTI or TARGET_INFO tables is no 2021 export", file="t.db"),
    nc("unversioned_no_kernels", db("DROP TABLE META_DATA_EXPORT;"), "attr.no_target_rows",
       "a 2021-shaped export (no metadata) without kernel rows"),
    nc("schema_not_a_number", db(kernel(0), version="three"), "nsys.unknown_schema", "a schema version of words"),
    nc("no_kernel_table", db("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"), "nsys.missing_table",
       "a report recorded without CUDA trace", stderr_has=["CUPTI_ACTIVITY_KIND_KERNEL"]),
    nc("no_string_table", db("DROP TABLE StringIds;" + kernel(0)), "nsys.missing_table", "no StringIds table"),
    nc("kernel_column_missing", db("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName;"),
       "nsys.bad_table", "the kernel table lacks demangledName", stderr_has=["demangledName"]),
    nc("no_kernels", db(), "attr.no_target_rows", "a kernel table without rows"),
    nc("only_broken_kernels", db("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (300, 200, 0, 7, 5, 1, 1);"),
       "attr.no_target_rows", "every kernel ends before it starts: dropped, counted, none left"),
    nc("several_devices", db(kernel(0) + kernel(1, correlation=6)), "attr.several_devices",
       "kernels on two devices and no --device", stderr_has=["0: 1 kernels, 1: 1 kernels"]),
    nc("device_absent", db(kernel(0)), "attr.no_target_rows", "--device names a device without work",
       args=["--device", "3"]),
    nc("process_absent", db(kernel(0)), "attr.no_target_rows", "--process names a pid without work",
       args=["--process", "pid:4242"], stderr_has=["python3 (77) x1"]),
    nc("nvtx_label_absent", db(kernel(0)), "attr.window_label", "a window label with no NVTX_EVENTS table",
       args=["--window", "label:step"]),
    nc("cut_by_one_byte", GOOD[:-1], "nsys.uncommitted", "a copy one byte short: SQLite would zero-fill it"),
    nc("grown_by_two_bytes", GOOD + b"\0\0", "nsys.uncommitted", "two bytes past the last page"),
    nc("hot_journal", GOOD, "nsys.uncommitted", "a rollback journal beside it: uncommitted pages",
       extra_files={"t.sqlite-journal": b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + bytes(504)},
       stderr_has=["rollback journal"]),
    nc("wal_beside", GOOD, "nsys.uncommitted", "a write-ahead log beside it holds rows the file lacks",
       extra_files={"t.sqlite-wal": b"\x37\x7f\x06\x82" + bytes(28)}, stderr_has=["wal_checkpoint"]),
    nc("kernel_view_endless", db("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS "
                                 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS start, "
                                 "i + 1 AS end, 0 AS deviceId, 7 AS streamId, i AS correlationId, 1 AS globalPid, "
                                 "1 AS demangledName FROM n;"),
       "nsys.bad_table", "the kernel table is a view over an endless query", stderr_has=["is a view"]),
    nc("strings_view_cross_join", db(kernel(0) + "ALTER TABLE StringIds RENAME TO s0; CREATE VIEW StringIds AS "
                                     "SELECT a.id AS id, a.value AS value FROM s0 a, s0 b, s0 c, s0 d;"),
       "nsys.bad_table", "StringIds as a cross join", stderr_has=["StringIds is a view"]),
    nc("runtime_view", db(kernel(0) + "CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT 1 AS start;"),
       "nsys.bad_table", "an optional table that is a view"),
    nc("generated_end", db("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start "
                           "INTEGER, end INTEGER GENERATED ALWAYS AS (start + 5) VIRTUAL, deviceId INTEGER, streamId "
                           "INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"),
       "nsys.bad_table", "a generated end column", stderr_has=["generated column"]),
    nc("kernel_2_62_ns", db(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, {1 << 62}, 0, 7, 5, {GLOBAL_PID}, 1);"),
       "attr.no_target_rows", "the only kernel lasts 2^62 ns: dropped as a bad interval, counted"),
    nc("long_name_many_kernels", db("UPDATE StringIds SET value = printf('%.*c', 1048576, 'x');" +
                                    "".join(kernel(0, start=100 * i, correlation=i) for i in range(1, 101))),
       "nsys.too_large", "one 1 MiB name shared by 100 kernels: 100 MiB of copies from a 1 MiB file"),
    Case("duplicate_and_overlap", ["attribute", "--trace", "e={t.sqlite}", "--tokens", "1", "--format", "json"],
         files={"t.sqlite": db(kernel(0) + kernel(0) + kernel(0, start=120, correlation=6))}, exit=0,
         stdout_has=['"nsys.duplicate_row"', '"nsys.stream_overlap"'],
         why="a row given twice (dropped, counted) and two kernels of one stream overlapping (counted)"),
    Case("string_id_twice", ["attribute", "--trace", "e={t.sqlite}", "--tokens", "1", "--format", "json"],
         files={"t.sqlite": db("ALTER TABLE StringIds RENAME TO s0; CREATE TABLE StringIds (id INTEGER, value TEXT);"
                               "INSERT INTO StringIds VALUES (1, 'gemm'), (1, 'other'), (NULL, 'x');" + kernel(0))},
         exit=0, stdout_has=['"nsys.bad_string"', '"gemm"'], why="a StringIds id twice (the first kept) and a NULL id"),
    Case("good_export", ["attribute", "--trace", "e={t.sqlite}", "--tokens", "1", "--format", "json"],
         files={"t.sqlite": GOOD}, exit=0, stdout_has=['"source": "nsys"'], why="the smallest good export"),
]
