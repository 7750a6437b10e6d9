#!/bin/bash
# First H200 call of issue 16 (kept for the record; fixtures/recordings/cuda_decode_h200/README.md
# has the commands that made the fixtures). Runs the tracer injected by hand, the
# PyTorch-profiler reference, raw record dumps and the no-tracer wall times.
set -u
B=$PWD/.devbin
export LD_LIBRARY_PATH=$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS=1
W=/tmp/work; mkdir -p $W
exec > >(tee $OUT/log.txt) 2>&1
echo "== env"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
python3 -c 'import torch,transformers;print(torch.__version__,torch.version.cuda,transformers.__version__)'
find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head
CUPTI_DIR=$(dirname "$(python3 -c 'import glob,os,nvidia; import sys; p=[g for d in nvidia.__path__ for g in glob.glob(os.path.join(d,"**","libcupti.so.13*"),recursive=True)]; print(p[0] if p else "")')" 2>/dev/null)
echo "torch's CUPTI dir: $CUPTI_DIR"
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CUPTI_DIR
ldd $B/libperfgate_cupti.so; ldd $B/perfgate | grep -i "not found"
T=$B/libperfgate_cupti.so
run_traced() {  # dir, args...
  local d=$1; shift; mkdir -p $d
  ( cd $d && PERFGATE_TRIAL_DIR=$d PERFGATE_CUPTI_OUTPUT_DIR=$d/cupti CUDA_INJECTION64_PATH=$T NVTX_INJECTION64_PATH=$T \
      python3 $OLDPWD/tools/recordings/cuda_decode_target.py "$@" ) > $d/command.log 2>&1
  echo "rc=$? $d"; tail -3 $d/command.log; ls -la $d/cupti; cat $d/cupti/*.log
}
echo "== 1. dump runs (tiny)"
PERFGATE_CUPTI_DUMP_RECORDS=1 run_traced $W/dump_eager --mode eager --layers 1 --tokens 2 --warmup 0
echo "== 2. traced eager x1"
run_traced $W/traced_eager_1 --mode eager
for f in $W/traced_eager_1/cupti/*.json; do $B/perfgate attribute --trace eager=$f --window label:decode_step --tokens auto:decode_step --all-processes 2>&1 | head -40; done
echo "== 3. kineto eager x1"
mkdir -p $W/kineto_eager
python3 tools/recordings/cuda_decode_target.py --mode eager --kineto $W/kineto_eager/trace.json.gz > $W/kineto_eager/command.log 2>&1; echo rc=$?; tail -2 $W/kineto_eager/command.log
$B/perfgate attribute --trace eager=$W/kineto_eager/trace.json.gz --window label:decode_step --tokens auto:decode_step --all-processes 2>&1 | head -30
echo "== 4. plain eager x3"
for k in 1 2 3; do python3 tools/recordings/cuda_decode_target.py --mode eager | tail -1 | tee -a $OUT/overhead.jsonl; done
echo "== pack"
cd $W && gzip -k9 */cupti/*.json 2>/dev/null; tar cf $OUT/probe.tar --exclude="cupti-*.json" . ; ls -la $OUT; date -u
