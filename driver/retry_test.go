package driver

import (
	"testing"
	"time"
)

func TestRetryPauseDoublesToACap(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 64, 64, 64}
	for i, w := range want {
		if got := retryPause(i + 1); got != w*time.Millisecond {
			t.Errorf("retryPause(%d) = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
}
