//go:build !linux

package sysinfo

import (
	"fmt"
	"runtime"
)

func statDev(path string) (string, string, error) {
	return "", "", fmt.Errorf("a file's block device is read on Linux only, not %s", runtime.GOOS)
}
