"""childcpu.py FILE CMD ARGS...: run CMD, then write the CPU seconds (user + system) it and its
children used to FILE (getrusage of the reaped children), and exit with its status. scripts/bench
measures sysbench's and candor's driver CPU the same way with it."""
import resource
import subprocess
import sys

rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%f\n" % (r.ru_utime + r.ru_stime))
sys.exit(rc)
