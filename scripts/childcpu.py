"""childcpu.py FILE CMD ARGS...: run CMD, then write the CPU seconds (user + system) it and its
children used to FILE (getrusage of the reaped children), with the host's 1-minute load average at
its end, and exit with its status. scripts/bench measures sysbench's and candor's driver CPU the same
way with it.

It also writes FILE.steal: each CPU's steal over the command's run, the share of that CPU's time
the hypervisor gave another guest while this machine's work was ready to run (/proc/stat, as
mpstat's %steal), as "cpu0 PCT cpu1 PCT ...", so that a run disturbed by its neighbours shows."""
import os
import resource
import subprocess
import sys


def cpu_times():
    """Per CPU (cpu0, cpu1, ...): (total, steal) jiffies from /proc/stat; {} off Linux."""
    out = {}
    try:
        with open("/proc/stat") as f:
            for line in f:
                parts = line.split()
                if not parts[0].startswith("cpu") or parts[0] == "cpu":
                    continue
                # user nice system idle iowait irq softirq steal (guest time is inside user)
                v = [int(x) for x in parts[1:9]]
                out[parts[0]] = (sum(v), v[7] if len(v) > 7 else 0)
    except OSError:
        pass
    return out


# Children this interpreter reaped before it ran CMD (a version manager's shim that started it,
# say, whose helpers ran in this same process before it became Python) are not CMD's: their CPU is
# taken off.
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
before = cpu_times()
rc = subprocess.call(sys.argv[2:])
after = cpu_times()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%f %.2f\n" % (r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime, os.getloadavg()[0]))
fields = []
for name in sorted(after, key=lambda n: int(n[3:])):
    if name in before:
        total, steal = after[name][0] - before[name][0], after[name][1] - before[name][1]
        fields.append("%s %.1f" % (name, 100.0 * steal / total if total > 0 else 0))
with open(sys.argv[1] + ".steal", "w") as f:
    f.write(" ".join(fields) + "\n")
sys.exit(rc)
