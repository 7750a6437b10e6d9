"""Writes a regressed copy of an nsys export: on device 0, every tenth kernel
launched twice (the copy at the same times, under a correlation id of its own: an
exact copy of a row is dropped by the reader as a duplicate) and every kernel 10 %
longer.

usage: regress_export.py SOURCE.sqlite DEST.sqlite
"""
import shutil
import sqlite3
import sys

source, dest = sys.argv[1], sys.argv[2]
shutil.copyfile(source, dest)
db = sqlite3.connect(dest)
columns = [row[1] for row in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
copied = ", ".join("correlationId + 1000000000" if c == "correlationId" else c for c in columns)
db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT {copied} FROM CUPTI_ACTIVITY_KIND_KERNEL"
           " WHERE deviceId = 0 AND rowid % 10 = 0")
db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = end + (end - start) / 10 WHERE deviceId = 0")
db.commit()
db.close()
