"""Writes a regressed copy of an nsys export: on device 0, every tenth kernel
duplicated (same launch, same times) and every kernel 10 % longer.

usage: regress_export.py SOURCE.sqlite DEST.sqlite
"""
import shutil
import sqlite3
import sys

source, dest = sys.argv[1], sys.argv[2]
shutil.copyfile(source, dest)
db = sqlite3.connect(dest)
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL"
           " WHERE deviceId = 0 AND rowid % 10 = 0")
db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = end + (end - start) / 10 WHERE deviceId = 0")
db.commit()
db.close()
