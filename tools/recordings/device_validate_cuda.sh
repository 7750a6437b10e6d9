#!/bin/bash
# The fourth H200 call of issue 16: the tracer and recorder after the review's fixes
# (fork handling, late-record and untimed-record checks, clocks before the run), on
# short runs. Nothing of it is kept as a fixture but its log.
set -u
B=$PWD/.devbin; P=$B/perfgate; T=$B/libperfgate_cupti.so; W=/tmp/val
exec > >(tee $OUT/log.txt) 2>&1
export PYTHONUNBUFFERED=1
CUPTI_DIR=$(python3 -c 'import glob,os,nvidia; p=[g for d in nvidia.__path__ for g in glob.glob(os.path.join(d,"**","libcupti.so.13"),recursive=True)]; print(os.path.dirname(p[0]) if p else "")')
export LD_LIBRARY_PATH=$B:$CUPTI_DIR
$P --version
R="$P record --backend cuda --tracer $T --trials 1 --out $W"
$R --engine eager --tokens 8 -- python3 tools/recordings/cuda_decode_target.py --mode eager --tokens '{tokens}'; echo "rc=$?"
$R --engine graphs --tokens 8 --env TORCHINDUCTOR_COMPILE_THREADS=1 -- python3 tools/recordings/cuda_decode_target.py --mode graphs --tokens '{tokens}'; echo "rc=$?"
$R --engine probe-reset --tokens 4 -- $B/cuda_probe reset 4; echo "rc=$?"
$R --engine fork --tokens 4 -- python3 tools/recordings/fork_target.py; echo "rc=$?"
for e in eager graphs probe-reset fork; do
  echo "== $e"; ls $W/$e/trial-1 $W/$e/trial-1/cupti; cat $W/$e/trial-1/cupti/*.log
  python3 -c "import json,sys;m=json.load(open('$W/$e/trial-1/meta.json'));print(m.get('complete'),m.get('kernels'),m.get('clocks'),m.get('cuda'),m.get('perfgate'),[ (t.get('records'),t.get('untimed_records'),t.get('errors')) for t in m.get('tracer_summary',[])])"
done
$P attribute --trace eager=$W/eager --trace graphs=$W/graphs --baseline eager --window label:decode_step --tokens auto:decode_step --all-processes 2>&1 | head -30
(cd $W && tar cf $OUT/val.tar --exclude='*.json.gz' .)
