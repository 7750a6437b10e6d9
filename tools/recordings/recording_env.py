"""The machine a recording was made on, shared by the record_*.py scripts: the date,
Python, the framework's versions and devices (given by the script), the host and
nvidia-smi's view of the GPUs."""
import datetime
import platform
import subprocess
import sys


def environment(framework):
    """`framework`: the script's own fields (versions, devices, flags), in the order
    they are printed, between the Python version and the host."""
    env = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        **framework,
        "host": platform.platform(),
    }
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        env["nvidia_smi"] = smi.stdout.strip()
    except Exception as e:  # nvidia-smi is optional
        env["nvidia_smi"] = f"unavailable: {e}"
    return env
