//go:build !linux

package schedule

import "time"

const preciseWaits = false

func lockForWaits() func() { return func() {} }

func nanosleep(d time.Duration) { time.Sleep(d) }
