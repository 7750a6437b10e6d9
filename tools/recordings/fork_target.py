#!/usr/bin/env python3
"""A CUDA process that forks a child which exits through sys.exit (so the tracer's exit
hook runs in the child too): the child must write nothing of its parent's work.
Usage: python3 fork_target.py"""
import os
import sys

import torch

x = torch.ones(1 << 20, device="cuda")
for _ in range(4):
    torch.cuda.nvtx.range_push("step")
    x = x * 1.0001
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
child = os.fork()
if child == 0:
    sys.exit(0)
_, status = os.waitpid(child, 0)
print("child exited", status, flush=True)
