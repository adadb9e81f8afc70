"""childcpu.py FILE CMD ARGS...: run CMD, then write the CPU seconds (user + system) it and its
children used to FILE (getrusage of the reaped children), with the host's 1-minute load average at
its end, and exit with its status. scripts/bench measures sysbench's and candor's driver CPU the same
way with it."""
import os
import resource
import subprocess
import sys

rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%f %.2f\n" % (r.ru_utime + r.ru_stime, os.getloadavg()[0]))
sys.exit(rc)
