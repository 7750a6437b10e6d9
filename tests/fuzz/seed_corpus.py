#!/usr/bin/env python3
"""Assembles a fuzz target's seed corpus from the repository's fixtures and the shared
corpus of real third-party files (read in place, never copied into the repository).

    seed_corpus.py TARGET OUT_DIR --source-dir REPO [--corpus-dir SHARED_CORPUS]

Gzip files are inflated (the buffer readers take inflated bytes). A file of at most
MAX_WHOLE bytes is a seed as it is; a bigger one gives prefixes cut at a record
boundary and closed again (the first rows of an export, the first events of a trace),
so that big real files still seed the fuzzer below its -max_len. OUT_DIR is rebuilt
from scratch each time, so a removed fixture does not linger as a seed.
"""
import argparse
import gzip
import json
import re
import shutil
import sys
from pathlib import Path

# 256 KiB at the most: the 1 MiB prefixes of the big traces cost CI's 4-second fuzz
# stage 10-15 s per target to replay under ASan and coverage, for the same paths the
# 256 KiB ones take (long tables, many events); the unit tests read the files whole.
MAX_WHOLE = 1 << 18
PREFIX_SIZES = (32 << 10, (1 << 18) - 4096)


def read(path):
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def xml_prefixes(data, sizes):
    """The export cut after a </row> and closed, at each prefix size."""
    for limit in sizes:
        end = data.rfind(b"</row>", 0, limit)
        if end < 0:
            continue
        yield data[: end + len(b"</row>")] + b"\n</node></trace-query-result>\n"


def json_prefixes(data, sizes):
    """A trace-event file cut after a complete event of traceEvents and closed."""
    start = data.find(b'"traceEvents"')
    for limit in sizes:
        cut = data.rfind(b"},", max(start, 0), limit)
        if start < 0 or cut < 0:
            continue
        candidate = data[: cut + 1] + b"]}\n"
        try:
            json.loads(candidate)
        except ValueError:
            candidate = data[:limit]  # still a seed: a truncated trace
        yield candidate


def seeds_of(path, kind, sizes):
    data = read(path)
    # An SQLite file cut short is no database at all (it is refused before any page is
    # read): a real export is a seed whole, its pages for the fuzzer to mutate.
    if len(data) <= MAX_WHOLE or (kind == "sqlite" and len(data) <= 4 * MAX_WHOLE):
        yield "", data
        return
    prefixes = xml_prefixes(data, sizes) if kind == "xml" else json_prefixes(data, sizes)
    for size, prefix in zip(sizes, prefixes):
        yield f".first{size >> 10}k", prefix


def seed_name(path, source, corpus):
    for tag, root in (("repo", source), ("corpus", corpus)):
        if root is not None and path.is_relative_to(root):
            path = Path(tag) / path.relative_to(root)
            break
    name = re.sub(r"\.gz$", "", str(path))
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[-120:]


def files(root, patterns, exclude=None):
    if root is None or not root.is_dir():
        return []
    found = sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})
    return [p for p in found if not (exclude and re.search(exclude, p.name))]


def kernel_family_seeds(source, corpus):
    """Tables in the --kernel-families format, each also followed by NUL and names."""
    tables = [
        {"rules": [{"prefix": "gemm", "family": "gemm"}]},
        {"strip_prefix": "kernel_", "rules": [{"prefix": "mul_mv", "family": "matvec"},
                                              {"prefix": "rms_norm", "family": "norm"}]},
        {"rules": [{"prefix": "*attention", "family": "attention"}, {"prefix": "", "family": "x"}]},
    ]
    names = ["kernel_mul_mv_q4_0_f32", "void at::native::elementwise_kernel<128, 4>(int)",
             "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(Params)"]
    for path in files(corpus, ["hf2q/phase0-*-perkernel.json"]):
        try:
            names += [k["name"] for k in json.loads(path.read_text())["kernels"]][:200]
        except (ValueError, KeyError, TypeError):
            pass
    for i, table in enumerate(tables):
        text = json.dumps(table).encode()
        yield f"table{i}.json", text
        yield f"table{i}_names.bin", text + b"\0" + "\n".join(names).encode()


def ref_chain_export(rows):
    """An export whose process cell k refs cell k-1: a dump that expands each ref nests
    k levels deep in row k (quadratic output, recursion as deep as the chain)."""
    head = ("<?xml version=\"1.0\"?>\n<trace-query-result>\n"
            "<node xpath='//trace-toc[1]/run[1]/data[1]/table[1]'><schema name=\"metal-gpu-intervals\">"
            "<col><mnemonic>start</mnemonic><name>Start</name><engineering-type>start-time</engineering-type></col>"
            "<col><mnemonic>process</mnemonic><name>Process</name><engineering-type>process</engineering-type></col>"
            "</schema>\n<row><start-time id=\"1\" fmt=\"x\">5</start-time>"
            "<process id=\"2\" fmt=\"p\"><pid fmt=\"1\">1</pid></process></row>\n")
    body = "".join(f'<row><start-time ref="1"/><process id="{k}" fmt="p"><process ref="{k - 1}"/></process></row>\n'
                   for k in range(3, rows + 2))
    return (head + body + "</node></trace-query-result>\n").encode()


def small_trace_seeds():
    """A few-event trace of each kind attribution reads: small inputs mutate fastest."""
    meta = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": "stream 7"}}]
    host = [{"ph": "X", "cat": "user_annotation", "name": "decode", "pid": 1, "tid": 2, "ts": 0, "dur": 100},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 5, "dur": 2,
             "args": {"correlation": 11, "External id": 3}}]
    gpu = [{"ph": "X", "cat": "gpu_user_annotation", "name": "decode", "pid": 1, "tid": 7, "ts": 9, "dur": 50},
           {"ph": "X", "cat": "kernel", "name": "void gemm_kernel<128>(float*)", "pid": 1, "tid": 7, "ts": 10.5,
            "dur": 20, "args": {"correlation": 11, "stream": 7, "device": 0, "External id": 3}},
           {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 1, "tid": 7,
            "ts": 40, "dur": 3, "args": {"stream": 7}},
           {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 11, "pid": 1, "tid": 2, "ts": 5},
           {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 11, "pid": 1, "tid": 7, "ts": 10.5, "bp": "e"}]
    yield "small_full.json", json.dumps({"traceEvents": meta + host + gpu, "displayTimeUnit": "ms"}).encode()
    yield "small_array.json", json.dumps(meta + gpu).encode()
    yield "small_string_ids.json", json.dumps({"traceEvents": [dict(e, pid="Spans", tid="") for e in gpu]}).encode()


def small_nsys_seeds():
    """Small nsys exports of every table the reader reads, built with SQLite: the
    mutations land on pages the reader parses, not on megabytes of rows."""
    import sqlite3
    gp = (1 << 48) | (77 << 24)
    schema = f"""
    CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
    INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0');
    CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'void gemm<128>(float*)'), (2, 'cudaLaunchKernel_v7000'), (3, 'decode');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
      streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
      shortName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 150, 0, 7, 5, {gp}, 1, 1), (200, 260, 0, 7, 6, {gp}, 1, 1);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 95, 1, {gp}, 5, 2), (190, 195, 1, {gp}, 6, 2);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,
      streamId INTEGER, correlationId INTEGER, globalPid INTEGER, copyKind INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (50, 60, 0, 7, 4, {gp}, 1);
    CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
      textId INTEGER, globalTid INTEGER);
    INSERT INTO NVTX_EVENTS VALUES (80, 300, 59, NULL, 3, {gp});
    CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
    INSERT INTO PROCESSES VALUES ({gp}, 77, 'python3');
    CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, busLocation TEXT, isDiscrete INTEGER,
      cuDevice INTEGER);
    INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100', '0000:01:00.0', 1, 0);
    """
    for name, script in (("full", schema),
                         ("old_2021", schema.replace("META_DATA_EXPORT", "IGNORED_META")),
                         ("schema_2", schema.replace("META_DATA_EXPORT", "EXPORT_META_DATA").replace("3.25.0", "2.9.1"))):
        c = sqlite3.connect(":memory:")
        c.executescript(script)
        yield f"small_{name}.sqlite", c.serialize()


# The bad-input suite's crafted files that each target reads: (cases module, the file
# endings that target parses).
BADINPUT_SEEDS = {
    "kernel_report": ("cases_kernel_report", (".json",)),
    "nsys_stats": ("cases_kernel_report", (".csv", ".txt")),
    "counters": ("cases_counters", (".txt",)),
    "nsys_export": ("cases_nsys", (".sqlite", ".db")),
    "toks_report": ("cases_toks", (".json", ".jsonl", ".md", ".csv", ".sql")),
}


def badinput_seeds(target, source):
    """The files the bad-input suite crafts for the target's format (tests/badinput):
    every error path a case reaches, as a seed to mutate."""
    if target not in BADINPUT_SEEDS:
        return
    module_name, endings = BADINPUT_SEEDS[target]
    sys.path.insert(0, str(source / "tests" / "badinput"))
    try:
        module = __import__(module_name)
    finally:
        sys.path.pop(0)
    for case in module.CASES:
        for rel, data in case.files.items():
            if not rel.endswith(endings) or data is None:
                continue
            data = data.encode() if isinstance(data, str) else data
            if len(data) <= MAX_WHOLE:
                yield f"badinput_{case.name}_{Path(rel).name}", data


def regression_seeds(target, source):
    """Crafted inputs of crashes and hangs found by fuzzing (their fuzz.<target> test
    fails until the reader is fixed): written here rather than checked in."""
    if target == "xctrace_export":
        yield "regression_ref_chain.xml", ref_chain_export(3000)  # 2026-12-01: ~1 min in WriteTableJson
    if target == "toks_report":  # 2026-12-04: a cell that is no UTF-8 threw from nlohmann::json::dump
        yield "regression_cell_not_utf8.md", "| model | test | t/s |\n| --- | --- | --- |\n| m\xe9 | tg128 | 5 \u00b1 1 |\n" \
            .encode("utf-8").replace("m\u00e9".encode("utf-8"), b"m\xe9")
    if target == "ane_replay":
        m5 = (source / "fixtures" / "ane" / "m5.json").read_text()
        yield "regression_number_overflow.json", m5.replace("353.8", "1e999").encode()  # uncaught out_of_range.406


def target_files(target, source, corpus):
    recordings = source / "fixtures" / "recordings"
    if target == "xctrace_export":
        return "xml", files(recordings, ["**/*.xml.gz", "**/*.xml"], r"^toc\.xml") + \
            files(corpus and corpus / "xctrace", ["**/*.xml"], r"toc")
    if target == "xctrace_toc":
        return "xml", files(recordings, ["**/toc.xml"]) + files(corpus and corpus / "xctrace", ["**/*toc*.xml"])
    if target == "json_trace":
        return "json", files(recordings, ["**/*.json.gz"]) + \
            files(corpus and corpus / "kineto", ["**/*.json.gz", "**/*.json"])
    if target == "golden":
        return "json", files(source / "golden", ["**/*.json"])
    if target == "ane_replay":
        return "json", files(source / "fixtures" / "ane", ["*.json"])
    if target == "kernel_families":
        return "json", []
    if target == "toks_report":
        return "json", files(source / "fixtures" / "toks", ["**/*.json", "**/*.jsonl", "**/*.md", "**/*.log", "**/*.csv",
                                                          "**/*.sql"],
                             r"README")
    if target == "kernel_report":
        return "json", files(corpus and corpus / "hf2q", ["phase0-*.json"])
    if target == "counters":
        return "text", files(source / "fixtures" / "counters", ["**/*.txt"]) + \
            files(corpus and corpus / "hf2q", ["metrics_baseline.txt"])
    if target == "nsys_export":  # the real mock export whole (372 KB), and small_nsys_seeds
        return "sqlite", files(corpus and corpus / "nsys", ["mock.sqlite"])
    if target == "nsys_stats":
        return "text", files(source / "fixtures" / "nsys-stats", ["*.txt", "*.csv"])
    sys.exit(f"seed_corpus.py: unknown target {target}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("target")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--source-dir", type=Path, required=True)
    parser.add_argument("--corpus-dir", default="")
    args = parser.parse_args()
    corpus = Path(args.corpus_dir) if args.corpus_dir else None
    kind, paths = target_files(args.target, args.source_dir, corpus)
    shutil.rmtree(args.out_dir, ignore_errors=True)
    args.out_dir.mkdir(parents=True)
    count = 0
    seen = set()
    for path in paths:
        # Trials of one recording hold the same tables: only the first file of a
        # name gets the biggest prefix, so the smoke test's corpus pass stays short.
        sizes = PREFIX_SIZES if path.name not in seen else PREFIX_SIZES[:-1]
        seen.add(path.name)
        base = seed_name(path, args.source_dir, corpus)
        for suffix, data in seeds_of(path, kind, sizes):
            (args.out_dir / (base + suffix)).write_bytes(data)
            count += 1
    crafted = list(regression_seeds(args.target, args.source_dir)) + list(badinput_seeds(args.target, args.source_dir))
    if args.target == "json_trace":
        crafted += list(small_trace_seeds())
    if args.target == "nsys_export":
        crafted += list(small_nsys_seeds())
    for name, data in crafted:
        (args.out_dir / name).write_bytes(data)
        count += 1
    if args.target == "kernel_families":
        for name, data in kernel_family_seeds(args.source_dir, corpus):
            (args.out_dir / name).write_bytes(data)
            count += 1
    if count == 0:
        sys.exit(f"seed_corpus.py: no seeds for {args.target}")
    print(f"{args.target}: {count} seeds in {args.out_dir}")


if __name__ == "__main__":
    main()
