package memcap

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// allocEnv makes the test binary, re-executed, allocate and touch that many bytes, then exit 0.
const allocEnv = "MEMCAP_TEST_ALLOC"

func TestMain(m *testing.M) {
	if v := os.Getenv(allocEnv); v != "" {
		n, _ := strconv.Atoi(v)
		b := make([]byte, n)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		os.Exit(int(b[len(b)/2]) - 1)
	}
	os.Exit(m.Run())
}

func child(n int64) *exec.Cmd {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), allocEnv+"="+strconv.FormatInt(n, 10))
	return c
}

// TestRun: a child that touches 64 MiB under a 1 GiB cap exits 0 with a peak RSS of at least
// 64 MiB; one that allocates 2 GiB under the same cap fails (the cap applies); a command's exit
// status and output come back.
func TestRun(t *testing.T) {
	if r := Run(t, 1<<30, child(64<<20)); r.Code != 0 || r.PeakRSS < 64<<20 || r.PeakRSS > 512<<20 {
		t.Errorf("64 MiB under a 1 GiB cap: %+v, want exit 0 and a peak RSS of 64 MiB to 512 MiB", r)
	}
	if r := Run(t, 1<<30, child(2<<30)); r.Code == 0 {
		t.Errorf("2 GiB under a 1 GiB cap: %+v, want a failure", r)
	}
	if r := Run(t, 1<<30, exec.Command("sh", "-c", "echo hi; exit 3")); r.Code != 3 || r.Output != "hi\n" {
		t.Errorf("sh: %+v, want exit 3 and \"hi\\n\"", r)
	}
}

// TestPeakIsTheChilds: a child's peak is its own, not this process's: with 300 MiB resident here,
// a child that touches 16 MiB peaks far below it (Go starts a child with vfork, sharing this
// process's memory until the exec, which the kernel counts in the child's own rusage).
func TestPeakIsTheChilds(t *testing.T) {
	held := make([]byte, 300<<20)
	for i := 0; i < len(held); i += 4096 {
		held[i] = 1
	}
	r := Run(t, 1<<30, child(16<<20))
	if r.Code != 0 || r.PeakRSS < 16<<20 || r.PeakRSS > 150<<20 {
		t.Errorf("16 MiB beside 300 MiB resident in the test process: %+v, want exit 0 and a peak of 16 MiB to 150 MiB", r)
	}
	if held[len(held)/2] != 1 {
		t.Fatal("held")
	}
}
