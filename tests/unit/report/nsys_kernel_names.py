#!/usr/bin/env python3
"""Per-kernel-name GPU time of one device of an Nsight Systems SQLite export, over the
window of an NVTX range, counted without perfgate (for kernel_names_cli_test.cc).

The window is perfgate's `--tokens auto:LABEL --window label:LABEL`: tokens = the LABEL
ranges of the process that ran the device; a kernel is inside when its launch call
(else the kernel itself) starts between the first range's start and the last one's
end. Prints tokens, then one line per exact kernel name, the most GPU time first:
µs/token (sum / 1000 / tokens, to 2 places), calls, the name.

    python3 tests/unit/report/nsys_kernel_names.py shared/corpus/nsys/h100_2gpu_1s.sqlite 0 aten::mm
"""
import sqlite3
import sys


def main(path, device, label):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    pid = "((globalTid >> 24) & 16777215)"
    (owner,) = db.execute(
        "SELECT DISTINCT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId = ?",
        (device,)).fetchone()
    ranges = db.execute(
        f"SELECT start, end FROM NVTX_EVENTS WHERE text LIKE ? AND {pid} = ?", (label + ", op_id = %", owner)
    ).fetchall()
    lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
    rows = db.execute(
        """SELECT s.value, count(*), sum(k.end - k.start)
           FROM CUPTI_ACTIVITY_KIND_KERNEL k
           LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId
                AND ((r.globalTid >> 24) & 16777215) = ((k.globalPid >> 24) & 16777215)
           JOIN StringIds s ON s.id = k.demangledName
           WHERE k.deviceId = ? AND coalesce(r.start, k.start) BETWEEN ? AND ?
           GROUP BY s.value ORDER BY 3 DESC""", (device, lo, hi)).fetchall()
    print("tokens", len(ranges))
    for name, calls, ns in rows:
        print(f"{ns / 1000 / len(ranges):.2f} {calls} {name}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
